//! Object labels: short ones stored inline, longer ones shared.
//!
//! Every object keeps its label for messages, and its registry slot keeps a copy for
//! messages about the object's stale handles after it is destroyed. With `String`s that was
//! two allocations and two frees per object made and destroyed — a third of the allocator
//! calls of a buffer and a bind group created and destroyed. Labels are mostly short
//! ("churn", "vertices", "shadow pass"), so a label of up to 23 bytes lives in the value
//! itself (24 bytes, as a `String`) and copying it allocates nothing; a longer one is
//! reference-counted, so its copies share one allocation. Reading one is a branch, no
//! validation: labels are passed to checks on the recording path.

/// An object's label.
pub(crate) type Label = smol_str::SmolStr;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_labels_are_inline_and_long_ones_shared() {
        for s in ["", "a", "churn", "exactly twenty-three b."] {
            let l = Label::new(s);
            assert!(!l.is_heap_allocated(), "{s:?}");
            assert_eq!(l.as_str(), s);
            assert_eq!(l.clone().as_str(), s);
        }
        let long = "a label longer than twenty-three bytes";
        let l = Label::new(long);
        assert!(l.is_heap_allocated());
        let copy = l.clone();
        assert!(
            std::ptr::eq(l.as_str(), copy.as_str()),
            "copies share the text"
        );
        assert_eq!(&*copy, long);
        assert_eq!(format!("{}", Label::new("x")), "x");
        assert_eq!(format!("{:?}", Label::new("x")), "\"x\"");
        assert_eq!(std::mem::size_of::<Label>(), std::mem::size_of::<String>());
    }
}
