//! The span map of a synthetic source (token trees copied out of macro invocations, between glue): where
//! each copy lies there and in the file, so what is read in a copy maps back to the file's bytes and
//! lines. It imports none of its sibling modules.

/// A segment of a synthetic source: where its copy starts there and in the file.
#[derive(Debug, Clone, Copy)]
pub(in crate::rust) struct Segment {
    pub(in crate::rust) synthetic: usize,
    pub(in crate::rust) original: usize,
    pub(in crate::rust) len: usize,
    /// The segment's first row in the synthetic source and in the file.
    pub(in crate::rust) synthetic_row: usize,
    pub(in crate::rust) original_row: usize,
    /// The token tree copied, by its place in the list the synthetic source was built from.
    pub(in crate::rust) pending: usize,
}

impl Segment {
    pub(in crate::rust) fn new(
        synthetic: usize,
        original: usize,
        len: usize,
        synthetic_row: usize,
        original_row: usize,
    ) -> Self {
        Segment { synthetic, original, len, synthetic_row, original_row, pending: 0 }
    }

    /// Whether synthetic byte `at` lies in this segment's copy (not in the glue around it).
    pub(in crate::rust) fn holds(&self, at: usize) -> bool {
        self.synthetic <= at && at < self.synthetic + self.len
    }

    /// The file's byte and line for a synthetic byte and line of this segment.
    pub(in crate::rust) fn map(&self, at: usize, line: u32) -> (usize, u32) {
        let line = (line as usize + self.original_row).saturating_sub(self.synthetic_row);
        (at - self.synthetic + self.original, u32::try_from(line).unwrap_or(u32::MAX))
    }
}
