//! The words of the progress line the platform and `shadowcl replay` show on a terminal
//! (the line itself is drawn by the front-ends, with `indicatif`).

/// `1234/5000 work-groups, 2 findings so far`: `done` of `total` `unit`s, and the findings the
/// session holds.
pub fn progress_message(done: u64, total: u64, unit: &str, findings: usize) -> String {
    let found = match findings {
        0 => "no findings so far".to_string(),
        1 => "1 finding so far".to_string(),
        n => format!("{n} findings so far"),
    };
    format!("{done}/{total} {unit}, {found}")
}

#[cfg(test)]
mod tests {
    use super::progress_message;

    #[test]
    fn counts_and_findings_read_as_a_sentence() {
        assert_eq!(
            progress_message(1234, 5000, "work-groups", 2),
            "1234/5000 work-groups, 2 findings so far"
        );
        assert_eq!(
            progress_message(3, 10, "schedules", 1),
            "3/10 schedules, 1 finding so far"
        );
        assert_eq!(
            progress_message(0, 7, "work-groups", 0),
            "0/7 work-groups, no findings so far"
        );
    }
}
