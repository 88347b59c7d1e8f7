//! deploy/nginx/nginx.conf pointed at loopback: the relay's load-balancer
//! tests and bench run the deployment's own config, with only the upstream
//! addresses, the listen address and the writable paths moved.

use std::path::Path;

/// The deploy config with its two upstreams at `127.0.0.1:a` and `:b`,
/// listening on `127.0.0.1:port`, its paths under `dir`, one worker (run as
/// root when we are: workers dropping to `nobody` could not use `dir`).
pub fn nginx_conf(dir: &Path, port: u16, a: u16, b: u16) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx/nginx.conf");
    let conf = std::fs::read_to_string(&path).expect("deploy/nginx/nginx.conf");
    for want in ["relay1:7070", "relay2:7070", "listen 8080;", "/tmp/nginx"] {
        assert!(conf.contains(want), "deploy config lost {want:?}");
    }
    let conf = conf
        .replace("relay1:7070", &format!("127.0.0.1:{a}"))
        .replace("relay2:7070", &format!("127.0.0.1:{b}"))
        .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"))
        .replace("/tmp/nginx", &format!("{}/nginx", dir.display()))
        .replace("worker_processes auto;", "worker_processes 1;");
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if root {
        format!("user root;\n{conf}")
    } else {
        conf
    }
}

/// Stops an nginx started in the foreground: SIGTERM, so the master stops
/// its workers before exiting (a SIGKILL would orphan them, listening), then
/// SIGKILL if it is still there after 2 s.
pub fn stop(child: &mut std::process::Child) {
    let _sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    for _ in 0..100 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _killed = child.kill();
    let _reaped = child.wait();
}
