//! The platform's settings: every `SHADOWCL_*` variable, read from the environment once per
//! process into one [`Settings`] and passed down from here. The crates below the platform
//! (interpreter, checkers, capture, compiler) read no environment: each has a `from_lookup`
//! constructor that [`Settings::from_lookup`] calls with the lookup it was given.

use shadowcl_capture::CaptureConfig;
use shadowcl_compiler::Compiler;
use shadowcl_interpreter::Schedule;
use shadowcl_shadow::Config;
use std::sync::OnceLock;
use std::time::Duration;

/// Everything the `SHADOWCL_*` variables (docs/settings.md) decide for the platform.
#[derive(Debug)]
pub struct Settings {
    /// `SHADOWCL_WG_ORDER`, `SHADOWCL_WI_ORDER`, `SHADOWCL_QUANTUM`, `SHADOWCL_SEED`,
    /// `SHADOWCL_THREADS`, `SHADOWCL_WG_SERIAL`: how every launch is interleaved.
    pub schedule: Schedule,
    /// The checks and report files (`SHADOWCL_CHECKS`, `SHADOWCL_REPORT`, ...).
    pub checker: Config,
    /// `SHADOWCL_CAPTURE*`; `None`: launches are not recorded.
    pub capture: Option<CaptureConfig>,
    /// The compile driver: `SHADOWCL_COMPILE` and the cache (`SHADOWCL_CACHE`,
    /// `XDG_CACHE_HOME`, `HOME`).
    pub compiler: Compiler,
    /// `SHADOWCL_TIMEOUT`: how long a launch may run; `None`: no limit.
    pub timeout: Option<Duration>,
    /// `SHADOWCL_FORWARD`: the vendor ICD to forward to, when set and not empty.
    pub forward: Option<String>,
    /// `SHADOWCL_LOG`: the tracing filter (default `warn`).
    pub log: String,
    /// What could not be used, each naming its variable and what is used instead; reported
    /// once, when the settings are read.
    pub problems: Vec<String>,
}

impl Settings {
    /// The settings `get` describes (a key/value source: the environment, or a test's map).
    /// Never fails: a malformed value is left at its default and described in `problems`.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Settings {
        let (schedule, mut problems) = Schedule::from_lookup(&get);
        let checker = Config::from_lookup(&get).unwrap_or_else(|e| {
            problems.push(format!("{e}; using the default checks"));
            Config::default()
        });
        let capture = CaptureConfig::from_lookup(&get).unwrap_or_else(|e| {
            problems.push(format!("capture disabled: {e}"));
            None
        });
        let compiler = Compiler::from_lookup(&get).unwrap_or_else(|e| {
            problems.push(format!("{e}; using the default"));
            Compiler::new().with_cache_dir(shadowcl_compiler::cache_dir(&get))
        });
        let timeout = time_limit(get("SHADOWCL_TIMEOUT").as_deref()).unwrap_or_else(|e| {
            problems.push(format!("{e}; launches run without a time limit"));
            None
        });
        Settings {
            schedule,
            checker,
            capture,
            compiler,
            timeout,
            forward: get("SHADOWCL_FORWARD")
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            log: get("SHADOWCL_LOG")
                .filter(|s| !s.trim().is_empty())
                .unwrap_or_else(|| "warn".to_string()),
            problems,
        }
    }
}

/// The process's settings, read from the environment on first use; their problems are
/// printed then, once.
pub fn settings() -> &'static Settings {
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        let s = Settings::from_lookup(|k| std::env::var(k).ok());
        for p in &s.problems {
            eprintln!("ShadowCL: {p}");
        }
        s
    })
}

/// `SHADOWCL_TIMEOUT`: seconds a launch may run before the watchdog ends it (its event then
/// fails with `CL_OUT_OF_RESOURCES` and the reason goes to the log and the context's
/// callback); unset, `0`, `off` or `none`: no limit.
fn time_limit(value: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(v) = value.map(str::trim) else {
        return Ok(None);
    };
    if matches!(v, "" | "0" | "off" | "none") {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(format!(
            "SHADOWCL_TIMEOUT={v} is not a number of seconds (or off)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shadowcl_capture::DataMode;
    use shadowcl_compiler::BuildMode;
    use shadowcl_interpreter::Order;
    use std::collections::HashMap;
    use std::path::PathBuf;

    fn from(vars: &[(&str, &str)]) -> Settings {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn every_setting_comes_from_the_one_lookup() {
        let s = from(&[
            ("SHADOWCL_WG_ORDER", "reverse"),
            ("SHADOWCL_SEED", "9"),
            ("SHADOWCL_CHECKS", "races"),
            ("SHADOWCL_REPORT", "r.json"),
            ("SHADOWCL_CAPTURE", "/tmp/caps"),
            ("SHADOWCL_CAPTURE_DATA", "none"),
            ("SHADOWCL_COMPILE", "app"),
            ("SHADOWCL_CACHE", "off"),
            ("SHADOWCL_TIMEOUT", "2.5"),
            ("SHADOWCL_FORWARD", " /usr/lib/libvendor.so "),
            ("SHADOWCL_LOG", "debug"),
        ]);
        assert_eq!(s.problems, Vec::<String>::new());
        assert_eq!((s.schedule.wg_order, s.schedule.seed), (Order::Reverse, 9));
        assert!(s.checker.checks.races && !s.checker.checks.uninit);
        assert_eq!(s.checker.report, Some(PathBuf::from("r.json")));
        let capture = s.capture.expect("SHADOWCL_CAPTURE is set");
        assert_eq!(capture.root, PathBuf::from("/tmp/caps"));
        assert_eq!(capture.data, DataMode::None);
        assert_eq!(s.compiler.mode(), BuildMode::Application);
        assert_eq!(s.compiler.cache_dir(), None);
        assert_eq!(s.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(s.forward.as_deref(), Some("/usr/lib/libvendor.so"));
        assert_eq!(s.log, "debug");
    }

    #[test]
    fn nothing_set_is_the_defaults() {
        let s = from(&[]);
        assert_eq!(s.problems, Vec::<String>::new());
        assert_eq!(s.schedule, Schedule::default());
        assert_eq!(s.checker, Config::default());
        assert_eq!(s.capture, None);
        assert_eq!(s.compiler.mode(), BuildMode::SourceFaithful);
        assert_eq!((s.timeout, s.forward.as_deref()), (None, None));
        assert_eq!(s.log, "warn");
    }

    /// Each malformed value is named once and its default used; the rest still apply.
    #[test]
    fn malformed_values_are_problems_and_defaults() {
        let s = from(&[
            ("SHADOWCL_QUANTUM", "lots"),
            ("SHADOWCL_SEED", "5"),
            ("SHADOWCL_CHECKS", "races,typo"),
            ("SHADOWCL_CAPTURE", "/tmp/caps"),
            ("SHADOWCL_CAPTURE_DATA", "everything"),
            ("SHADOWCL_COMPILE", "fast"),
            ("HOME", "/home/u"),
            ("SHADOWCL_TIMEOUT", "soon"),
        ]);
        let named = |var: &str| s.problems.iter().filter(|p| p.contains(var)).count();
        for var in [
            "SHADOWCL_QUANTUM",
            "SHADOWCL_CHECKS",
            "SHADOWCL_CAPTURE_DATA",
            "SHADOWCL_COMPILE",
            "SHADOWCL_TIMEOUT",
        ] {
            assert_eq!(named(var), 1, "{var} in {:?}", s.problems);
        }
        assert_eq!(s.problems.len(), 5, "{:?}", s.problems);
        assert_eq!(
            (s.schedule.quantum, s.schedule.seed),
            (shadowcl_interpreter::Schedule::AUTO, 5)
        );
        assert_eq!(s.checker, Config::default());
        assert_eq!(s.capture, None);
        // The bad mode falls back alone: the cache folder is still the one HOME names.
        assert_eq!(s.compiler.mode(), BuildMode::SourceFaithful);
        assert_eq!(
            s.compiler.cache_dir(),
            Some(std::path::Path::new("/home/u/.cache/shadowcl"))
        );
        assert_eq!(s.timeout, None);
    }

    #[test]
    fn timeouts_parse_as_seconds_or_off() {
        assert_eq!(time_limit(None), Ok(None));
        assert_eq!(time_limit(Some("off")), Ok(None));
        assert_eq!(time_limit(Some(" 0 ")), Ok(None));
        assert_eq!(
            time_limit(Some("2.5")),
            Ok(Some(Duration::from_millis(2500)))
        );
        for bad in ["soon", "-1", "nan", "inf", "1e30"] {
            assert!(time_limit(Some(bad)).is_err(), "{bad}");
        }
    }
}
