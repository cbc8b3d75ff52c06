//! `thrift-build`: generates Rust from Thrift IDL files, for code that is checked in.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use thrift_build::{BinaryType, Config, Layout, MapType, SetType};

/// Generates Rust modules (one per IDL file, and a mod.rs) from Thrift IDL files.
#[derive(Parser)]
#[command(name = "thrift-build", version)]
struct Args {
    /// The IDL files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A directory to look for included files in (after the including file's own).
    #[arg(short = 'I', long = "include")]
    include: Vec<PathBuf>,
    /// Where to write the modules.
    #[arg(short, long, default_value = "src/gen")]
    out: PathBuf,
    /// Write mod.rs with `include!`s rather than `mod` declarations.
    #[arg(long)]
    include_layout: bool,
    /// `string` as `String` rather than `thrift_core::SharedStr`.
    #[arg(long)]
    std_strings: bool,
    /// `binary` as `bytes::Bytes` rather than `Vec<u8>`.
    #[arg(long)]
    bytes: bool,
    /// `map` as `HashMap` and `set` as `HashSet` where the keys allow it.
    #[arg(long)]
    hash_collections: bool,
    /// Enums fail on values the IDL does not name, rather than keeping them.
    #[arg(long)]
    closed_enums: bool,
    /// Handlers may fail with a TApplicationException.
    #[arg(long)]
    application_errors: bool,
    /// Print nothing but errors.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut config = Config::new();
    config
        .out_dir(&args.out)
        .layout(if args.include_layout { Layout::Include } else { Layout::Modules })
        .open_enums(!args.closed_enums)
        .application_errors(args.application_errors)
        .rerun_if_changed(false);
    if args.std_strings {
        config.string_type("String");
    }
    if args.bytes {
        config.binary_type(BinaryType::Bytes);
    }
    if args.hash_collections {
        config.map_type(MapType::HashMap).set_type(SetType::HashSet);
    }
    match config.compile(&args.files, &args.include) {
        Ok(generated) => {
            if !args.quiet {
                for warning in &generated.warnings {
                    eprintln!("{warning}\n");
                }
                eprintln!("wrote {} files to {}", generated.files.len(), args.out.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
