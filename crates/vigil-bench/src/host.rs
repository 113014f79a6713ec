//! What the host was doing while a run measured it: the CPU's model and count, and the
//! one-minute load average at each workload's start and end. Paired ratios remove the
//! drift *within* a run; these say how one run's host differed from another's (the same
//! binary has met and missed a target on two hosts of one kind, `docs/performance.md`
//! "Session 77"). Read from Linux's `/proc`; `None` (left out of the report) elsewhere.

/// The one-minute load average, from `/proc/loadavg`.
pub fn load_1min() -> Option<f64> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// The first field of `/proc/loadavg`'s text.
fn parse_loadavg(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The host in one line: its CPU model (from `/proc/cpuinfo`, when readable) and how many
/// CPUs this process may use.
pub fn describe() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    match cpu_model(&info) {
        Some(model) => format!("{model}, {cpus} CPUs"),
        None => format!("{cpus} CPUs"),
    }
}

/// The first `model name` of `/proc/cpuinfo`'s text.
fn cpu_model(text: &str) -> Option<&str> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == "model name")
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{cpu_model, parse_loadavg};

    #[test]
    fn the_load_is_the_first_field_of_proc_loadavg() {
        assert_eq!(parse_loadavg("0.14 0.03 0.01 1/234 5678\n"), Some(0.14));
        assert_eq!(parse_loadavg("12.50 3 1 2/3 4"), Some(12.5));
        assert_eq!(parse_loadavg(""), None);
        assert_eq!(parse_loadavg("busy 1 2"), None);
    }

    #[test]
    fn the_model_is_the_first_model_name_of_proc_cpuinfo() {
        let text = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(cpu_model(text), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
        assert_eq!(cpu_model("model name\t:   \n"), None);
    }
}
