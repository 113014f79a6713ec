//! RGBA8 images: PNG files and comparison against a golden image with a tolerance.

use std::path::Path;

/// An RGBA8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// The pixel at `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Writes a PNG.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer
            .write_image_data(&self.rgba)
            .map_err(|e| e.to_string())
    }

    /// Reads an 8-bit RGBA PNG.
    pub fn load(path: &Path) -> Result<Image, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .map_err(|e| e.to_string())?;
        let mut rgba = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
        let info = reader.next_frame(&mut rgba).map_err(|e| e.to_string())?;
        if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
            return Err(format!("{}: not 8-bit RGBA", path.display()));
        }
        rgba.truncate(info.buffer_size());
        Ok(Image {
            width: info.width,
            height: info.height,
            rgba,
        })
    }
}

/// How two images differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Pixels whose largest channel difference exceeds the tolerance.
    pub pixels_over: usize,
    /// Pixels that differ at all.
    pub pixels_different: usize,
    /// Largest channel difference anywhere.
    pub max_channel: u8,
    /// Pixels compared.
    pub total: usize,
}

/// The tolerance golden comparisons use: a pixel matches when every channel is within
/// `CHANNEL` of the golden; an image matches when at most `PIXEL_FRACTION` of its pixels
/// do not. Rasterisers agree on coverage (Vulkan fixes the rules) but differ in the last
/// bits of interpolation, derivatives and filtering, so lavapipe and an NVIDIA GPU land a
/// few levels apart on edges and minified texels.
pub const CHANNEL: u8 = 24;
/// See [`CHANNEL`].
pub const PIXEL_FRACTION: f64 = 0.01;

/// Compares `got` against `golden` channel by channel.
pub fn compare(got: &Image, golden: &Image, channel: u8) -> Result<Difference, String> {
    if (got.width, got.height) != (golden.width, golden.height) {
        return Err(format!(
            "size {}x{} differs from the golden {}x{}",
            got.width, got.height, golden.width, golden.height
        ));
    }
    let mut d = Difference {
        pixels_over: 0,
        pixels_different: 0,
        max_channel: 0,
        total: (got.width * got.height) as usize,
    };
    for (a, b) in got.rgba.chunks_exact(4).zip(golden.rgba.chunks_exact(4)) {
        let m = a
            .iter()
            .zip(b)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        d.max_channel = d.max_channel.max(m);
        if m > 0 {
            d.pixels_different += 1;
        }
        if m > channel {
            d.pixels_over += 1;
        }
    }
    Ok(d)
}

impl Difference {
    /// Whether the image is within the golden tolerance.
    pub fn within_tolerance(&self) -> bool {
        (self.pixels_over as f64) <= PIXEL_FRACTION * self.total as f64
    }
}
