//! The smallest executor for a simulated run: one future polled on the calling thread, woken
//! by its own channels. A simulated session and its vehicle talk only to each other (lock
//! step, at `Max` pace: no timer, no socket), so a runtime's scheduler, timer wheel and clock
//! reads between steps are pure overhead. Anything that wakes the future from another thread
//! still works: the thread parks until it is woken.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

struct Signal {
    woken: AtomicBool,
    thread: Thread,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Runs `fut` to completion on this thread.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let signal = Arc::new(Signal {
        woken: AtomicBool::new(true),
        thread: std::thread::current(),
    });
    let waker = Waker::from(signal.clone());
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        while !signal.woken.swap(false, Ordering::Acquire) {
            std::thread::park();
        }
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_in_one_future_and_a_wake_from_another_thread() {
        // Lock step over channels inside one future, as a simulated run does.
        let (tx, mut rx) = tokio::sync::mpsc::channel::<u32>(1);
        let producer = async move {
            for k in 0..1000 {
                let (done, ack) = tokio::sync::oneshot::channel::<()>();
                tx.send(k).await.expect("send");
                drop(done);
                let _ = ack.await;
            }
        };
        let consumer = async move {
            let mut sum = 0u64;
            while let Some(k) = rx.recv().await {
                sum += u64::from(k);
            }
            sum
        };
        let ((), sum) = block_on(async { tokio::join!(producer, consumer) });
        assert_eq!(sum, 999 * 1000 / 2);
        // Woken from another thread.
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let _ = tx.send(7);
        });
        assert_eq!(block_on(rx), Ok(7));
        let _ = t.join();
    }
}
