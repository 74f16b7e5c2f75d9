//! The engine worker's entry point (Trunk builds it with `data-type="worker"`).

fn main() {
    sstable_web::worker::register();
}
