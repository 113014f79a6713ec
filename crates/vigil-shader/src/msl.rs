//! MSL output with binding maps (see the shaders issue).
