//! `shadowcl run` and `shadowcl install` (owned by the checkers work).

#[derive(clap::Args)]
pub struct RunArgs {
    /// The application and its arguments.
    #[arg(last = true, required = true)]
    pub app: Vec<String>,
}

#[derive(clap::Args)]
pub struct InstallArgs {
    /// Write under ~/.local/etc/OpenCL/vendors instead of /etc/OpenCL/vendors.
    #[arg(long)]
    pub user: bool,
}

pub fn run(args: RunArgs) -> i32 {
    eprintln!("shadowcl run: not built yet ({:?})", args.app);
    2
}

pub fn install(args: InstallArgs) -> i32 {
    eprintln!("shadowcl install: not built yet (user: {})", args.user);
    2
}
