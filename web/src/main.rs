fn main() {
    sstable_web::start();
}
