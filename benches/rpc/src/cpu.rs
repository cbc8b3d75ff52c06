//! CPU time per call, server and client apart, over a client run's measured window: what
//! the throughput figures hide when both processes share the machine's cores.
//!
//! A process's CPU time is the user and system time of all its threads, exited ones
//! included, from `/proc/PID/stat` (in clock ticks, `getconf CLK_TCK` a second, usually
//! 100: over a four-second window of a busy core that is 400 ticks, a resolution of 0.25%).

use std::process::Command;
use std::sync::OnceLock;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// CPU time per call in the measured window, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuPerCall {
    /// The server process's.
    pub server_us: f64,
    /// The client process's.
    pub client_us: f64,
}

impl CpuPerCall {
    /// Both sides together: the cost of one call on a machine that runs both.
    pub fn total_us(&self) -> f64 {
        self.server_us + self.client_us
    }
}

/// The CPU time `pid` has used so far, if Linux's `/proc` says.
pub fn process_cpu(pid: u32) -> Option<Duration> {
    let ticks = stat_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)?;
    Some(Duration::from_secs_f64(ticks as f64 / ticks_per_second()?))
}

/// User plus system time in a `/proc/PID/stat` line, in clock ticks.
fn stat_ticks(stat: &str) -> Option<u64> {
    // The command name, field 2, is in parentheses and may hold spaces and parentheses:
    // count from the last `)`. Fields 14 and 15 (utime, stime) are the 12th and 13th after.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let user: u64 = fields.nth(11)?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

fn ticks_per_second() -> Option<f64> {
    static TICKS: OnceLock<Option<f64>> = OnceLock::new();
    *TICKS.get_or_init(|| {
        let out = Command::new("getconf").arg("CLK_TCK").output().ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok().filter(|&t: &f64| t > 0.0)
    })
}

/// A thread that reads both processes' CPU time when the measured window opens and when
/// it closes.
pub struct Window {
    sampler: JoinHandle<Option<(Duration, Duration)>>,
}

impl Window {
    /// Starts sampling this process and `server` over `[warmup, duration]` from now.
    pub fn start(server: u32, warmup: Duration, duration: Duration) -> Window {
        let started = Instant::now();
        let client = std::process::id();
        let sampler = std::thread::spawn(move || {
            let sample = || Some((process_cpu(server)?, process_cpu(client)?));
            std::thread::sleep(warmup);
            let (server_from, client_from) = sample()?;
            std::thread::sleep(duration.saturating_sub(started.elapsed()));
            let (server_to, client_to) = sample()?;
            Some((server_to.saturating_sub(server_from), client_to.saturating_sub(client_from)))
        });
        Window { sampler }
    }

    /// The CPU time per call of the window, once the run that made `calls` has ended.
    pub fn per_call(self, calls: u64) -> Option<CpuPerCall> {
        let (server, client) = self.sampler.join().ok()??;
        let per_call = |d: Duration| d.as_secs_f64() * 1e6 / calls as f64;
        (calls > 0).then(|| CpuPerCall { server_us: per_call(server), client_us: per_call(client) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_system_time_are_read_after_the_command_name() {
        let stat = "4242 (tokio (worker) 1) S 1 4242 4242 0 -1 4194560 300 0 0 0 1234 567 0 0 20 0 3 0";
        assert_eq!(stat_ticks(stat), Some(1234 + 567));
        assert_eq!(stat_ticks("4242 (cut short) S 1 2"), None);
    }

    #[test]
    fn a_busy_thread_shows_in_this_process_cpu_time() {
        let before = process_cpu(std::process::id()).expect("/proc/self/stat and getconf CLK_TCK");
        // Bounded: spins until 50 ms of CPU time show, for ten seconds at most.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut x = 0u64;
        while process_cpu(std::process::id()).unwrap() < before + Duration::from_millis(50) {
            assert!(Instant::now() < deadline, "ten seconds of spinning did not show as 50 ms of CPU time");
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
    }

    #[test]
    fn a_process_that_is_not_there_has_no_cpu_time() {
        assert_eq!(process_cpu(u32::MAX), None);
    }
}
