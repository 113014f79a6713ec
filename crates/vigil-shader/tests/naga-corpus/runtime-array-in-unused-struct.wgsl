struct DataStruct {
    data: f32,
    data_vec: vec4<f32>,
}

struct Struct {
    data: array<DataStruct>,
};

struct PrimitiveStruct {
    data: array<f32>,
};
