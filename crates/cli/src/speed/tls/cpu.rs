//! CPU time of a process tree from /proc (proc(5)): `utime` and `stime`, fields 14 and 15
//! of `/proc/PID/stat`, in clock ticks, summed over the process and its descendants (a
//! server that forks workers, as nginx and HAProxy can, counts whole).

use std::sync::OnceLock;

/// The CPU seconds of `pid` and its descendants, `None` where /proc cannot say (not
/// Linux, or the process is gone).
pub fn tree_seconds(pid: u32) -> Option<f64> {
    let table = processes()?;
    let mut total = 0u64;
    let mut seen = false;
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for (child, parent, ticks) in &table {
            if *child == p {
                total += ticks;
                seen = true;
            }
            if *parent == p {
                frontier.push(*child);
            }
        }
    }
    seen.then(|| total as f64 / ticks_per_second())
}

/// Every process: (pid, parent pid, utime + stime ticks).
fn processes() -> Option<Vec<(u32, u32, u64)>> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut table = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some((ppid, ticks)) =
            std::fs::read_to_string(entry.path().join("stat")).ok().and_then(|s| parse_stat(&s))
        {
            table.push((pid, ppid, ticks));
        }
    }
    Some(table)
}

/// (parent pid, utime + stime) from one `stat` line. The command name (field 2) is in
/// parentheses and may hold spaces and parentheses itself, so fields are counted after
/// its last ')'.
fn parse_stat(line: &str) -> Option<(u32, u64)> {
    let rest = &line[line.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    let ppid = fields.get(1)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((ppid, utime + stime))
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, which `getconf CLK_TCK` prints): 100
/// on every Linux this runs on, asked once in case one differs.
fn ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|&t| t > 0.0)
            .unwrap_or(100.0)
    })
}

#[cfg(test)]
mod tests {
    use super::{parse_stat, tree_seconds};

    #[test]
    fn stat_fields_after_an_odd_command_name() {
        let line = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 1 0 0 0 250 31 0 0 20 0 3 0 1 2 3";
        assert_eq!(parse_stat(line), Some((17, 281)));
        assert_eq!(parse_stat("1 (x) S"), None);
    }

    #[test]
    fn this_process_has_used_some_time() {
        // Burn a little CPU so that at least a tick is on the books.
        let mut x = 1u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 50 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let secs = tree_seconds(std::process::id()).unwrap();
        assert!(secs > 0.0, "{secs}");
    }
}
