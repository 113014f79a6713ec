@vertex fn vs() -> vec4<f32> { return vec4<f32>(0.0); }
