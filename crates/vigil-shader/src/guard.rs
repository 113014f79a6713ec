//! Runs the front end where nothing it does can take the process down: on a thread with a
//! large stack (deeply nested input recurses deeply) and behind `catch_unwind`, so a bug in
//! a translator becomes a diagnostic rather than a crash.

use crate::Diagnostic;

/// Stack for front-end work; naga's parser stops at 200 nested levels, well inside this.
const STACK_BYTES: usize = 64 << 20;

/// Runs `work` guarded; a panic inside becomes an "internal compiler error" diagnostic
/// attributed to `file`.
pub(crate) fn guarded<T, F>(file: &str, work: F) -> Result<T, Diagnostic>
where
    T: Send,
    F: FnOnce() -> Result<T, Diagnostic> + Send,
{
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("vigil-shader".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            })
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(Ok(result))) => result,
        Ok(Ok(Err(payload))) | Ok(Err(payload)) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".to_owned());
            Err(Diagnostic::new(
                file,
                format!("internal compiler error in the shader translator: {what}"),
            ))
        }
        Err(spawn) => Err(Diagnostic::new(
            file,
            format!("could not start the shader translator: {spawn}"),
        )),
    }
}
