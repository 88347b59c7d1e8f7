//! Building and reading one room's application frames: room messages, and
//! one numbered stream per turn.

use std::sync::Arc;

use cohost_core::sanitize::Sanitizer;
use cohost_protocol::{Frame, FrameType, Role, RoomId, StreamId};

use crate::codec::{Header, Opened, PayloadCodec, Plain, Sender};
use crate::message::{Message, ShareError};

/// Encodes and decodes the application frames of one room through its
/// payload codec. Cheap to clone.
#[derive(Clone)]
pub struct RoomCodec {
    room: RoomId,
    role: Option<Role>,
    codec: Arc<dyn PayloadCodec>,
    /// What every outgoing message passes before it is sealed.
    sanitizer: Arc<Sanitizer>,
}

impl std::fmt::Debug for RoomCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoomCodec")
            .field("room", &self.room)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl RoomCodec {
    /// Frames for `room`, payloads in the clear ([`Plain`]).
    pub fn new(room: RoomId) -> RoomCodec {
        RoomCodec::with_codec(room, Arc::new(Plain))
    }

    /// Frames for `room` through `codec` (end-to-end encryption).
    pub fn with_codec(room: RoomId, codec: Arc<dyn PayloadCodec>) -> RoomCodec {
        RoomCodec {
            room,
            role: None,
            codec,
            // Until the front end hands its own ([`RoomCodec::with_sanitizer`]):
            // every secret shape, no known value.
            sanitizer: Arc::new(Sanitizer::shapes_only()),
        }
    }

    /// The same codec passing every outgoing message through `sanitizer`
    /// (the front end's, which knows this machine's secret values) before
    /// it is sealed: the last point before it leaves for the room.
    pub fn with_sanitizer(mut self, sanitizer: Arc<Sanitizer>) -> RoomCodec {
        self.sanitizer = sanitizer;
        self
    }

    /// The same codec sending as `role`: the role every frame it builds is
    /// sealed under (the relay stamps the same one, and receivers open with
    /// the stamp).
    pub fn as_role(mut self, role: Role) -> RoomCodec {
        self.role = Some(role);
        self
    }

    /// What outgoing messages pass before they are sealed.
    pub fn sanitizer(&self) -> &Arc<Sanitizer> {
        &self.sanitizer
    }

    /// The room.
    pub fn room(&self) -> &RoomId {
        &self.room
    }

    fn seal(&self, header: &Header<'_>, msg: &Message) -> Result<Vec<u8>, ShareError> {
        self.codec
            .seal(header, msg.to_json(&self.sanitizer)?)
            .map_err(|source| ShareError::Codec {
                kind: header.kind,
                source,
            })
    }

    /// A message that travels outside any stream (suggestions, decisions,
    /// approval notices, chat). A turn's messages need [`RoomCodec::turn`].
    pub fn room_frame(&self, msg: &Message) -> Result<Frame, ShareError> {
        let kind = msg.frame_type();
        if kind.is_replayable() {
            return Err(ShareError::Misrouted { kind });
        }
        let header = Header {
            kind,
            room: &self.room,
            stream: None,
            chunk: 0,
            role: self.role,
        };
        let payload = self.seal(&header, msg)?;
        Ok(Frame::in_room(kind, &self.room, &payload)?)
    }

    /// The host closing the room (no payload).
    pub fn room_close(&self) -> Result<Frame, ShareError> {
        Ok(Frame::in_room(FrameType::RoomClose, &self.room, b"")?)
    }

    /// The stream of one turn; `stream` is the turn's prompt id.
    pub fn turn(&self, stream: StreamId) -> TurnStream {
        TurnStream {
            codec: self.clone(),
            stream,
            next_chunk: 0,
        }
    }

    /// The message bytes of a received frame, opened by the codec, and who
    /// signed it.
    pub fn open(&self, frame: &Frame) -> Result<Opened, ShareError> {
        let stream = frame.stream().map(StreamId::new).transpose()?;
        // The room the frame names, not ours: a frame moved here from
        // another room must fail to open, not open as ours.
        let room = RoomId::new(frame.room())?;
        let header = Header {
            kind: frame.kind(),
            room: &room,
            stream: stream.as_ref(),
            chunk: frame.chunk(),
            role: frame.role(),
        };
        self.codec
            .open(&header, &frame.payload())
            .map_err(|source| ShareError::Codec {
                kind: header.kind,
                source,
            })
    }

    /// The application message a received frame carries: `Ok(None)` for
    /// relay control and room frames, an error for a payload that does not
    /// decode (for the caller to show; nothing is dropped silently).
    pub fn decode(&self, frame: &Frame) -> Result<Option<Message>, ShareError> {
        Ok(self.receive(frame)?.0)
    }

    /// [`RoomCodec::decode`], with the sender its signature names (`None`
    /// for relay frames and a codec that signs nothing).
    pub fn receive(&self, frame: &Frame) -> Result<(Option<Message>, Option<Sender>), ShareError> {
        if !frame.kind().is_application() {
            // Not an application frame: its payload is the relay's, not ours.
            return Ok((None, None));
        }
        let opened = self.open(frame)?;
        let message = Message::from_json(frame.kind(), &opened.body)?;
        Ok((message, opened.sender))
    }
}

/// One turn as a relay stream: `ai.execution.started` first (chunk 0), then
/// the turn's events in order, numbered by this type alone.
#[derive(Debug)]
pub struct TurnStream {
    codec: RoomCodec,
    stream: StreamId,
    next_chunk: u64,
}

impl TurnStream {
    /// The stream id.
    pub fn stream(&self) -> &StreamId {
        &self.stream
    }

    /// Whether no frame has been built yet.
    pub fn is_new(&self) -> bool {
        self.next_chunk == 0
    }

    /// The next frame of the stream. A chunk index is used only by a frame
    /// that was built, so the stream has no holes.
    pub fn frame(&mut self, msg: &Message) -> Result<Frame, ShareError> {
        let kind = msg.frame_type();
        if !kind.is_replayable() {
            return Err(ShareError::Misrouted { kind });
        }
        let header = Header {
            kind,
            room: &self.codec.room,
            stream: Some(&self.stream),
            chunk: self.next_chunk,
            role: self.codec.role,
        };
        let payload = self.codec.seal(&header, msg)?;
        let frame = Frame::in_stream(
            kind,
            &self.codec.room,
            &self.stream,
            self.next_chunk,
            &payload,
        );
        self.next_chunk += 1;
        Ok(frame)
    }
}
