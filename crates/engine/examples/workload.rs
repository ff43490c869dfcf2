//! Writes the benchmark workload as files, to measure the whole
//! `lorebook preview` process (time and peak memory):
//!
//! ```sh
//! cargo run --release -p lorebook-engine --example workload -- /tmp/wl
//! /usr/bin/time -v target/release/lorebook preview /tmp/wl/book.json --chat /tmp/wl/chat.json --json > /dev/null
//! ```

#[path = "../benches/workload.rs"]
mod workload;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir =
        std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "workload".into()));
    std::fs::create_dir_all(&dir)?;
    let recursive = std::env::args().any(|a| a == "--recursive");
    let book = workload::book(recursive);
    lorebook_engine::formats::native::save(&book, &dir.join("book.json"))?;
    let chat: Vec<serde_json::Value> = workload::chat(&book)
        .iter()
        .map(|m| serde_json::json!({"role": m.role.as_str(), "content": m.text}))
        .collect();
    std::fs::write(dir.join("chat.json"), serde_json::to_vec(&chat)?)?;
    println!("wrote {}", dir.display());
    Ok(())
}
