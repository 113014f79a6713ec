//! The wgpu path's device, on the same adapter vigil uses.

/// A wgpu device and queue.
pub struct Wgpu {
    /// Device.
    pub device: wgpu::Device,
    /// Queue.
    pub queue: wgpu::Queue,
}

impl Wgpu {
    /// Opens the Vulkan adapter named `adapter_name` with its own limits.
    pub fn new(adapter_name: &str) -> Result<Wgpu, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            flags: wgpu::InstanceFlags::empty(),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let adapter = adapters
            .into_iter()
            .find(|a| a.get_info().name == adapter_name)
            .ok_or_else(|| format!("wgpu: no Vulkan adapter named {adapter_name}"))?;
        let features = adapter.features()
            & (wgpu::Features::TIMESTAMP_QUERY
                | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
                | wgpu::Features::INDIRECT_FIRST_INSTANCE);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("bench"),
            required_features: features,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| e.to_string())?;
        Ok(Wgpu { device, queue })
    }

    /// Reads `size` bytes of `buffer` (COPY_SRC) through a mapped readback copy.
    pub fn read(&self, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, String> {
        self.read_range(buffer, 0, size)
    }

    /// Reads `size` bytes of `buffer` (COPY_SRC) from `offset`.
    pub fn read_range(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Vec<u8>, String> {
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        enc.copy_buffer_to_buffer(buffer, offset, &readback, 0, size);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let bytes = readback
            .get_mapped_range(..)
            .map_err(|e| e.to_string())?
            .to_vec();
        readback.unmap();
        Ok(bytes)
    }

    /// Reads an RGBA8 texture (COPY_SRC) back, tightly packed.
    pub fn read_texture(&self, texture: &wgpu::Texture, size: [u32; 2]) -> Result<Vec<u8>, String> {
        let row = u64::from(size[0]) * 4;
        let padded = row.div_ceil(256) * 256;
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("texture readback"),
            size: padded * u64::from(size[1]),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        enc.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded as u32),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let mapped = readback.get_mapped_range(..).map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity((row * u64::from(size[1])) as usize);
        for y in 0..u64::from(size[1]) {
            out.extend_from_slice(&mapped[(y * padded) as usize..][..row as usize]);
        }
        drop(mapped);
        readback.unmap();
        Ok(out)
    }

    /// Waits for all submitted work.
    pub fn wait(&self) -> Result<(), String> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
