//! Writes the seed corpora into `DIR/<target>/seed-N` (default DIR: `fuzz/corpus`), after
//! checking that every seed reads as its target expects.

use std::path::PathBuf;

use thrift_fuzz::seeds::{check_seeds, corpus, TARGETS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("fuzz/corpus"));
    let checked = check_seeds()?;
    for target in TARGETS {
        let out = dir.join(target);
        std::fs::create_dir_all(&out)?;
        let seeds = corpus(target);
        for (i, seed) in seeds.iter().enumerate() {
            std::fs::write(out.join(format!("seed-{i}")), seed)?;
        }
        println!("{target}: {} seeds in {}", seeds.len(), out.display());
    }
    println!("{checked} seeds decoded as their targets read them");
    Ok(())
}
