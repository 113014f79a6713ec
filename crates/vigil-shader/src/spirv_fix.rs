//! Repairs of naga's SPIR-V where it breaks a Vulkan rule, each naming the defect. A module
//! a repair cannot make valid is refused, never handed to the driver.

use std::collections::{HashMap, HashSet};

const HEADER_WORDS: usize = 5;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const STORAGE_CLASS_UNIFORM: u32 = 2;
const DECORATION_BLOCK: u32 = 2;

/// Each instruction of a module: its first word's index, opcode and operands.
fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, u32, &[u32])> + '_ {
    let mut at = HEADER_WORDS;
    std::iter::from_fn(move || {
        let first = *words.get(at)?;
        let count = (first >> 16) as usize;
        let operands = words.get(at.saturating_add(1)..at.saturating_add(count))?;
        if count == 0 {
            return None;
        }
        let here = at;
        at = at.saturating_add(count);
        Some((here, first & 0xffff, operands))
    })
}

/// Decorates `Block` the struct of every uniform-buffer binding array that lacks it.
///
/// naga (through version 30) decorates the element struct of a *storage* buffer binding
/// array with `Block` but forgets it for a *uniform* one, which Vulkan requires
/// (VUID-StandaloneSpirv-Uniform-06676). The decoration is added unless the struct is
/// also a member of another struct (a `Block` struct nested in a block is invalid too);
/// such a module is refused.
pub(crate) fn block_decorate_uniform_arrays(words: &mut Vec<u32>) -> Result<(), String> {
    let mut blocks: HashSet<u32> = HashSet::new();
    let mut pointers: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut arrays: HashMap<u32, u32> = HashMap::new();
    let mut structs: HashSet<u32> = HashSet::new();
    let mut members: HashSet<u32> = HashSet::new();
    let mut uniforms: Vec<u32> = Vec::new();
    let mut after_annotations: Option<usize> = None;
    let mut first_type: Option<usize> = None;
    for (at, op, operands) in instructions(words) {
        match (op, operands) {
            (OP_DECORATE, [target, decoration, ..]) => {
                if *decoration == DECORATION_BLOCK {
                    blocks.insert(*target);
                }
                after_annotations = Some(at.saturating_add(operands.len()).saturating_add(1));
            }
            (OP_MEMBER_DECORATE, _) => {
                after_annotations = Some(at.saturating_add(operands.len()).saturating_add(1));
            }
            (OP_TYPE_STRUCT, [id, rest @ ..]) => {
                structs.insert(*id);
                members.extend(rest.iter().copied());
                first_type.get_or_insert(at);
            }
            (OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, [id, element, ..]) => {
                arrays.insert(*id, *element);
                first_type.get_or_insert(at);
            }
            (OP_TYPE_POINTER, [id, class, pointee]) => {
                pointers.insert(*id, (*class, *pointee));
                first_type.get_or_insert(at);
            }
            (OP_VARIABLE, [ty, _, class, ..]) if *class == STORAGE_CLASS_UNIFORM => {
                uniforms.push(*ty);
            }
            (19..=39, _) => {
                first_type.get_or_insert(at);
            }
            _ => {}
        }
    }
    let mut missing: Vec<u32> = Vec::new();
    for ty in uniforms {
        let Some(&(_, pointee)) = pointers.get(&ty) else {
            continue;
        };
        let Some(&element) = arrays.get(&pointee) else {
            continue;
        };
        if !structs.contains(&element) || blocks.contains(&element) || missing.contains(&element) {
            continue;
        }
        if members.contains(&element) {
            return Err("a uniform buffer binding array's struct is also used inside another struct; naga leaves it without the Block decoration Vulkan requires, and vigil cannot add it there (use a separate struct type for the array)".to_owned());
        }
        missing.push(element);
    }
    if missing.is_empty() {
        return Ok(());
    }
    let Some(at) = after_annotations.or(first_type) else {
        return Err("the module has no type declarations to decorate".to_owned());
    };
    let inserted: Vec<u32> = missing
        .iter()
        .flat_map(|&id| [(3 << 16) | OP_DECORATE, id, DECORATION_BLOCK])
        .collect();
    words.splice(at..at, inserted);
    Ok(())
}
