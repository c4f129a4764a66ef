//! Live SocketCAN source (Linux). On kernels without AF_CAN (like the development machines)
//! [`SocketCanSource::open`] returns [`SocketCanError::Unsupported`] with a clear message.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use socketcan::{CanSocket, EmbeddedFrame, Frame, Socket};
use tokio::sync::mpsc;

use super::CanFrame;
use crate::ingest::health::SourceHealth;

#[derive(Debug, thiserror::Error)]
pub enum SocketCanError {
    #[error(
        "SocketCAN is not available on this machine (the kernel has no AF_CAN support: {0}); \
         record with candump and use `scil can decode`, or tunnel the bus with cannelloni (UDP 20000)"
    )]
    Unsupported(std::io::Error),
    #[error(
        "cannot open CAN interface {iface:?} (does it exist and is it up? `ip link show {iface}`)"
    )]
    Open {
        iface: String,
        source: std::io::Error,
    },
}

/// An open raw CAN socket.
#[derive(Debug)]
pub struct SocketCanSource {
    socket: CanSocket,
    iface: String,
    health: SourceHealth,
}

impl SocketCanSource {
    pub fn open(iface: &str, health: SourceHealth) -> Result<Self, SocketCanError> {
        match CanSocket::open(iface) {
            Ok(socket) => Ok(Self {
                socket,
                iface: iface.into(),
                health,
            }),
            Err(e) if e.raw_os_error() == Some(libc_eafnosupport()) => {
                Err(SocketCanError::Unsupported(e))
            }
            Err(source) => Err(SocketCanError::Open {
                iface: iface.into(),
                source,
            }),
        }
    }

    /// Reads frames on a blocking thread until `tx` is closed. Frames are stamped with the wall
    /// clock (Unix seconds) because a live bus has no other time base; fusion with NCOM needs the
    /// caller to align clocks.
    pub fn spawn(self, tx: mpsc::Sender<CanFrame>) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || loop {
            if tx.is_closed() {
                return;
            }
            match self.socket.read_frame_timeout(Duration::from_millis(200)) {
                Ok(f) => {
                    self.health.message();
                    let t = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map(|d| d.as_secs_f64())
                        .unwrap_or(0.0);
                    let frame = CanFrame {
                        time_s: Some(t),
                        id: f.raw_id(),
                        extended: f.is_extended(),
                        remote: f.is_remote_frame(),
                        error: matches!(f, socketcan::CanFrame::Error(_)),
                        fd: false,
                        fd_flags: 0,
                        data: f.data().to_vec(),
                        iface: Some(self.iface.clone()),
                    };
                    self.health.sample(t);
                    if tx.blocking_send(frame).is_err() {
                        return;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => {
                    tracing::warn!(error = %e, iface = %self.iface, "socketcan read error");
                    self.health.error(&e);
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        })
    }
}

/// EAFNOSUPPORT on Linux.
const fn libc_eafnosupport() -> i32 {
    97
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_error_without_af_can() {
        // On these machines AF_CAN is missing; where it exists, `can0` usually does not.
        // An interface of that name existing would be fine too.
        if let Err(e) = SocketCanSource::open("scil-test-can0", SourceHealth::new("t")) {
            let msg = e.to_string();
            assert!(
                msg.contains("SocketCAN") || msg.contains("scil-test-can0"),
                "{msg}"
            );
        }
    }
}
