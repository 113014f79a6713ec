//! Pipeline-cache data: the frame vigil writes around the driver's bytes, and the check
//! that data given back is that frame, of this device and driver, whole and unchanged.
//!
//! Drivers check only the header of their own cache data (vendor, device, cache UUID); a
//! body that a disk error or a partial write damaged can crash them. So vigil's frame
//! names the device and driver ([`vigil_hal::Device::pipeline_cache_key`]) and carries the
//! body's length and a checksum, and only a body that matches all of them reaches the
//! driver. The checksum catches damage, not a file crafted to pass it: cache data is
//! something an application keeps for itself, not input from others.
//!
//! The frame, little-endian: `MAGIC` (8 bytes), the format version (u32), the key's length
//! (u32) and the key, the body's length (u64), its checksum (u64, FNV-1a), the body.

use super::ensure;
use crate::error::Result;

/// What vigil's pipeline-cache data begins with.
const MAGIC: &[u8; 8] = b"vigil-pc";
/// The frame's format.
const VERSION: u32 = 1;

/// FNV-1a, 64 bits: the body's checksum.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The driver's `body` framed for a device and driver of `key`.
pub(crate) fn frame(key: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        MAGIC
            .len()
            .saturating_add(24)
            .saturating_add(key.len())
            .saturating_add(body.len()),
    );
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    // A backend's key is a few dozen bytes.
    out.extend_from_slice(&u32::try_from(key.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// Splits `n` bytes off the front of `rest`.
fn take<'d>(rest: &mut &'d [u8], n: usize) -> Option<&'d [u8]> {
    let (head, tail) = (rest.get(..n)?, rest.get(n..)?);
    *rest = tail;
    Some(head)
}

fn word<const N: usize>(rest: &mut &[u8]) -> Option<[u8; N]> {
    take(rest, N)?.try_into().ok()
}

/// The driver's body of `data`, which must be vigil's frame around data written by a
/// device and driver of `key`, whole and unchanged (`pipeline-cache.data`).
pub(crate) fn body<'d>(label: &str, data: &'d [u8], key: &[u8]) -> Result<&'d [u8]> {
    const OP: &str = "create_pipeline_cache";
    let mut rest = data;
    let magic = take(&mut rest, MAGIC.len());
    ensure!(
        magic == Some(&MAGIC[..]),
        PipelineCacheData,
        OP,
        label,
        "the data is not pipeline-cache data written by vigil ({} bytes, not beginning with vigil's mark)",
        data.len()
    );
    let version = word::<4>(&mut rest).map(u32::from_le_bytes);
    ensure!(
        version == Some(VERSION),
        PipelineCacheData,
        OP,
        label,
        "the data is in pipeline-cache format {version:?}; this vigil reads format {VERSION}"
    );
    let key_len = word::<4>(&mut rest).map(u32::from_le_bytes);
    let theirs = key_len.and_then(|n| take(&mut rest, n as usize));
    ensure!(
        theirs == Some(key),
        PipelineCacheData,
        OP,
        label,
        "the data was written on another device or driver (a different GPU, driver version or pipeline-cache identity): the driver could not use it"
    );
    let len = word::<8>(&mut rest).map(u64::from_le_bytes);
    let sum = word::<8>(&mut rest).map(u64::from_le_bytes);
    ensure!(
        len == Some(rest.len() as u64),
        PipelineCacheData,
        OP,
        label,
        "the data is cut short or has bytes added: its header says {len:?} bytes of driver data, {} follow",
        rest.len()
    );
    ensure!(
        sum == Some(checksum(rest)),
        PipelineCacheData,
        OP,
        label,
        "the data is damaged: its checksum does not match its {} bytes of driver data",
        rest.len()
    );
    Ok(rest)
}
