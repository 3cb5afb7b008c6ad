//! drsg-benches: whole-program benchmark scripts (`benches/*.sh`) and the raw-parse baseline
//! (`rawparse`), the physical limit indexing is compared against.
