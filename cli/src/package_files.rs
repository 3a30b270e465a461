//! `shadowcl generate-package-files DIR` (hidden): the man pages and shell completions that
//! `ci/package` puts in the Debian package, made from the clap definitions themselves so they
//! say what `--help` says.

use clap_complete::Shell;
use std::path::Path;

/// The shells whose completions the package installs.
const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// Writes `DIR/man/*.1` (one page per visible subcommand: `shadowcl.1`, `shadowcl-run.1`, …)
/// and `DIR/completions/` (`shadowcl.bash`, `_shadowcl`, `shadowcl.fish`).
pub fn generate(mut cmd: clap::Command, dir: &Path) -> Result<(), String> {
    let man = dir.join("man");
    let completions = dir.join("completions");
    for d in [&man, &completions] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    clap_mangen::generate_to(cmd.clone(), &man)
        .map_err(|e| format!("cannot write the man pages in {}: {e}", man.display()))?;
    let name = cmd.get_name().to_string();
    for shell in SHELLS {
        clap_complete::generate_to(shell, &mut cmd, &name, &completions).map_err(|e| {
            format!(
                "cannot write the {shell} completions in {}: {e}",
                completions.display()
            )
        })?;
    }
    Ok(())
}
