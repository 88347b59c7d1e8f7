//! The desktop sink: `org.freedesktop.Notifications.Notify` on the D-Bus
//! session bus (GNOME, KDE, dunst, mako...), through zbus. The connection
//! is made at the first notice and again after a failure.

use async_trait::async_trait;

use crate::notice::{Notice, NoticeKind};
use crate::notifier::Sink;

const DEST: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// Where the session bus is.
#[derive(Debug, Clone)]
enum Bus {
    /// `DBUS_SESSION_BUS_ADDRESS`, as every desktop program finds it.
    Session,
    /// An explicit address (tests start a private bus).
    Address(String),
}

/// Sends notices to the freedesktop notification service.
pub struct DesktopSink {
    bus: Bus,
    conn: Option<zbus::Connection>,
}

impl std::fmt::Debug for DesktopSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopSink")
            .field("bus", &self.bus)
            .finish()
    }
}

impl DesktopSink {
    /// A sink on the user's session bus.
    pub fn session() -> DesktopSink {
        DesktopSink {
            bus: Bus::Session,
            conn: None,
        }
    }

    /// A sink on the bus at `address` (e.g. `unix:path=/tmp/bus`).
    pub fn at(address: impl Into<String>) -> DesktopSink {
        DesktopSink {
            bus: Bus::Address(address.into()),
            conn: None,
        }
    }

    /// Whether a session bus is there to try (`DBUS_SESSION_BUS_ADDRESS`
    /// set): front ends add the sink only then.
    pub fn available() -> bool {
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty())
    }

    async fn connect(&self) -> zbus::Result<zbus::Connection> {
        match &self.bus {
            Bus::Session => zbus::Connection::session().await,
            Bus::Address(a) => {
                zbus::connection::Builder::address(a.as_str())?
                    .build()
                    .await
            }
        }
    }
}

#[async_trait]
impl Sink for DesktopSink {
    fn name(&self) -> &str {
        "desktop"
    }

    async fn deliver(&mut self, n: &Notice) -> Result<(), String> {
        if self.conn.is_none() {
            self.conn = Some(
                self.connect()
                    .await
                    .map_err(|e| format!("no D-Bus session bus: {e}"))?,
            );
        }
        let Some(conn) = &self.conn else {
            return Ok(());
        };
        let urgency: u8 = if n.kind.urgent() { 2 } else { 1 };
        let mut hints = std::collections::HashMap::<&str, zbus::zvariant::Value<'_>>::new();
        hints.insert("urgency", urgency.into());
        hints.insert("category", category(n.kind).into());
        let actions: Vec<&str> = Vec::new();
        let result = conn
            .call_method(
                Some(DEST),
                PATH,
                Some(DEST),
                "Notify",
                &(
                    "cohost",
                    0u32,
                    "dialog-information",
                    n.title.as_str(),
                    n.body.as_str(),
                    actions,
                    hints,
                    -1i32,
                ),
            )
            .await;
        if let Err(e) = result {
            // Reconnect next time (the bus or the service may come back).
            self.conn = None;
            return Err(format!("the notification service did not take it: {e}"));
        }
        Ok(())
    }
}

/// The freedesktop category of a notice.
fn category(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::TurnFailed => "im.error",
        _ => "im.received",
    }
}
