//! Submission rules: serials, refusals that consume nothing, destroyed resources, queue
//! writes and readback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

fn dispatching_buffer(d: &TDevice, k: &CopyKernel, g: BindGroup) -> CommandBuffer<TestApi> {
    let mut e = encoder(d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.finish().unwrap()
}

#[test]
fn serials_count_up_from_one() {
    let d = device();
    assert_eq!(d.last_submitted_serial(), 0);
    for expected in 1..=3 {
        let e = encoder(&d);
        assert_eq!(d.submit([e.finish().unwrap()]).unwrap(), expected);
    }
    assert_eq!(d.submit(std::iter::empty()).unwrap(), 4);
    assert_eq!(d.poll().unwrap(), 4);
}

#[test]
fn work_naming_a_destroyed_buffer_is_refused_and_consumes_no_serial() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 64).unwrap();
    let cb = e.finish().unwrap();
    d.destroy_buffer(a).unwrap();
    let err = expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    assert!(err.message().contains("destroyed"), "{err}");
    assert_eq!(d.last_submitted_serial(), 0);
    assert_eq!(
        d.test_backend().submitted_commands().len(),
        0,
        "a refused submission ran something"
    );
    assert_eq!(d.stats().refused_submissions, 1);
}

#[test]
fn work_through_a_group_naming_a_destroyed_buffer_is_refused() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let cb = dispatching_buffer(&d, &k, g);
    d.destroy_buffer(b).unwrap();
    expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    let cb = dispatching_buffer_fresh(&d, &k, a);
    d.destroy_compute_pipeline(k.pipeline).unwrap();
    expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    assert_eq!(d.last_submitted_serial(), 0);
}

#[test]
fn a_group_whose_member_went_before_recording_is_refused_at_submit() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    d.destroy_buffer(b).unwrap();
    // Recording accepts the group (its member's fate is judged at submission) ...
    let cb = dispatching_buffer(&d, &k, g);
    // ... and the submission is refused, naming the buffer.
    let err = expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    assert!(err.message().contains("destroyed"), "{err}");
    assert_eq!(d.last_submitted_serial(), 0);
}

#[test]
fn a_buffer_mapped_before_recording_is_refused_at_submit() {
    let d = device();
    let b = storage(&d, 64);
    let readback = buffer(
        &d,
        "readback",
        64,
        BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    );
    let m = d.map_buffer_async(readback, MapMode::Read, 0, 64).unwrap();
    // Recording allows a mapped buffer (it may be unmapped before submission) ...
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(b, 0, readback, 0, 64).unwrap();
    // ... submission does not, though nothing was destroyed or mapped since recording.
    let err = expect_rule(d.submit([e.finish().unwrap()]), Rule::SubmitMapped);
    assert!(err.message().contains("mapped"), "{err}");
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(b, 0, readback, 0, 64).unwrap();
    let cb = e.finish().unwrap();
    d.unmap(m).unwrap();
    assert_eq!(d.submit([cb]).unwrap(), 1);
}

#[test]
fn a_destroyed_group_outlives_the_work_submitted_before_it() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let serial = d.submit([dispatching_buffer(&d, &k, g)]).unwrap();
    let live = d.live_native_objects();
    d.destroy_bind_group(g).unwrap();
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        live,
        "released while its work was pending"
    );
    d.test_backend().complete_through(serial);
    d.poll().unwrap();
    assert!(d.live_native_objects() < live, "never released");
}

fn dispatching_buffer_fresh(d: &TDevice, k: &CopyKernel, a: Buffer) -> CommandBuffer<TestApi> {
    let c = storage(d, 64);
    let g = group(d, k.bgl, &[(0, whole(a)), (1, whole(c))]).unwrap();
    dispatching_buffer(d, k, g)
}

#[test]
fn one_bad_command_buffer_refuses_the_whole_submission() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut good = encoder(&d);
    good.clear_buffer(b, 0, None).unwrap();
    let mut bad = encoder(&d);
    bad.clear_buffer(a, 0, None).unwrap();
    let (good, bad) = (good.finish().unwrap(), bad.finish().unwrap());
    d.destroy_buffer(a).unwrap();
    expect_rule(d.submit([good, bad]), Rule::SubmitDestroyed);
    assert_eq!(d.test_backend().submitted_commands().len(), 0);
}

#[test]
fn command_buffers_of_another_device_are_refused() {
    let a = device();
    let b = device();
    let e = encoder(&b);
    let cb = e.finish().unwrap();
    expect_rule(a.submit([cb]), Rule::SubmitForeign);
}

#[test]
fn waiting_for_a_serial_never_submitted_is_refused() {
    let d = device();
    expect_rule(
        d.wait_for_serial(1, std::time::Duration::from_millis(1)),
        Rule::WaitNeverSubmitted,
    );
    let e = encoder(&d);
    let s = d.submit([e.finish().unwrap()]).unwrap();
    assert!(
        d.wait_for_serial(s, std::time::Duration::from_millis(1))
            .unwrap()
    );
}

#[test]
fn completion_only_moves_forward_and_in_order() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    for _ in 0..3 {
        let e = encoder(&d);
        d.submit([e.finish().unwrap()]).unwrap();
    }
    assert_eq!(d.poll().unwrap(), 0);
    d.test_backend().complete_through(2);
    assert_eq!(d.poll().unwrap(), 2);
    assert!(
        !d.wait_for_serial(3, std::time::Duration::from_millis(5))
            .unwrap(),
        "serial 3 is held"
    );
    d.test_backend().complete_through(3);
    assert!(
        d.wait_for_serial(3, std::time::Duration::from_millis(5))
            .unwrap()
    );
    assert_eq!(d.completed_serial(), 3);
}

#[test]
fn write_buffer_rules() {
    let d = device();
    let no_dst = buffer(&d, "no dst", 64, BufferUsages::STORAGE);
    let b = storage(&d, 64);
    expect_rule(d.write_buffer(no_dst, 0, &[0; 4]), Rule::WriteUsage);
    expect_rule(d.write_buffer(b, 2, &[0; 4]), Rule::WriteAlignment);
    expect_rule(d.write_buffer(b, 0, &[0; 3]), Rule::WriteAlignment);
    expect_rule(d.write_buffer(b, 60, &[0; 8]), Rule::BufferRange);
    d.write_buffer(b, 60, &[1, 2, 3, 4]).unwrap();
    assert_eq!(d.read_buffer(b, 60, 4).unwrap(), vec![1, 2, 3, 4]);
}

#[test]
fn read_buffer_needs_a_readable_buffer_and_a_range_inside_it() {
    let d = device();
    let hidden = buffer(&d, "hidden", 64, BufferUsages::STORAGE);
    expect_rule(d.read_buffer(hidden, 0, 4), Rule::ReadUsage);
    let b = storage(&d, 64);
    expect_rule(d.read_buffer(b, 32, 64), Rule::BufferRange);
    // An odd range inside a COPY_SRC buffer reads back exactly those bytes.
    d.write_buffer(b, 0, &(0u8..64).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        d.read_buffer(b, 5, 7).unwrap(),
        (5u8..12).collect::<Vec<_>>()
    );
}

#[test]
fn writes_to_a_busy_buffer_land_after_earlier_work_and_before_later_work() {
    let d = device();
    let (a, b) = (storage(&d, 16), storage(&d, 16));
    d.write_buffer(a, 0, &[1; 16]).unwrap();
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 16).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    d.write_buffer(a, 0, &[2; 16]).unwrap();
    assert_eq!(
        d.read_buffer(b, 0, 16).unwrap(),
        vec![1; 16],
        "the earlier copy saw the earlier write"
    );
    assert_eq!(d.read_buffer(a, 0, 16).unwrap(), vec![2; 16]);
}

#[cfg(feature = "test-seams")]
#[test]
fn a_refused_submission_after_a_larger_one_puts_back_its_own_states_only() {
    // A larger submission (seven buffers, six of them written by its dispatches) is
    // followed by a refused one (two of them): the refused one must put back its own
    // buffers' states as they were after the larger one, not older ones (a plan's undo
    // lists are matched to its command buffers' resources by position, so entries left
    // over from another submission would put back the wrong states). A third submission
    // writing one of them again then waits for the first one's writes.
    use vigil::hal_test::TestCommand as C;
    let d = device();
    let k = copy_kernel(&d);
    let src = storage(&d, 64);
    let dsts: Vec<Buffer> = (0..6).map(|_| storage(&d, 64)).collect();
    let groups: Vec<BindGroup> = dsts
        .iter()
        .map(|&b| group(&d, k.bgl, &[(0, whole(src)), (1, whole(b))]).unwrap())
        .collect();
    // The barriers in front of the last submission's first dispatch (its heads first).
    let waits = |d: &TDevice| -> Vec<Stages> {
        let log = d.test_backend().submitted_commands();
        let last = log.last().map_or(0, |(serial, _)| *serial);
        log.into_iter()
            .filter(|(serial, _)| *serial == last)
            .flat_map(|(_, commands)| commands)
            .take_while(|c| !matches!(c, C::Dispatch(_)))
            .filter_map(|c| match c {
                C::Barrier(b) => Some(b.src),
                _ => None,
            })
            .collect()
    };
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    for &g in &groups {
        e.set_bind_group(0, g, &[]).unwrap();
        e.dispatch(1, 1, 1).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert!(waits(&d).is_empty(), "fresh buffers wait for nothing");
    let refused = dispatching_buffer(&d, &k, groups[0]);
    d.seams()
        .inject_fault("submit", FaultKind::OutOfMemory, FaultMode::Once);
    let err = d.submit([refused]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    d.submit([dispatching_buffer(&d, &k, groups[0])]).unwrap();
    let waits = waits(&d);
    assert_eq!(waits.len(), 1, "one barrier in front of the dispatch");
    assert!(
        waits[0].contains(Stages::COMPUTE),
        "the barrier waits for the first submission's dispatches: {waits:?}"
    );
}
