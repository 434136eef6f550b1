use super::*;

#[test]
fn pending_jobs_count_by_time_limit_else_wait_and_say_which() {
    let mut class = PendingClass::default();
    class.add_job(8.0, Some(24.0), Some(5.0));
    assert_eq!(class.gpu_hours_requested, 192.0, "the time limit wins over the wait");
    assert_eq!(class.gpu_hours_basis, PendingHoursBasis::TimeLimit);
    class.add_job(2.0, None, Some(10.0));
    class.add_job(1.0, None, None);
    assert_eq!(class.gpu_hours_requested, 212.0);
    assert_eq!(class.gpu_hours_basis, PendingHoursBasis::Mixed);
    assert_eq!((class.jobs, class.gpus, class.jobs_without_hours), (3, 11.0, 1));
}

#[test]
fn pending_demand_of_parts_merges_to_the_whole() {
    let mut a = PendingDemand::default();
    a.get_mut(WorkloadClass::Burst).add_job(1.0, None, Some(3.0));
    let mut b = PendingDemand::default();
    b.get_mut(WorkloadClass::Burst).add_job(2.0, Some(1.0), None);
    b.get_mut(WorkloadClass::Training).add_job(64.0, Some(48.0), None);
    a.merge(&b);
    let burst = a.get(WorkloadClass::Burst);
    assert_eq!((burst.jobs, burst.gpus, burst.gpu_hours_requested), (2, 3.0, 5.0));
    assert_eq!(burst.gpu_hours_basis, PendingHoursBasis::Mixed);
    assert_eq!(a.jobs(), 3);
    assert_eq!(a.gpu_hours_requested(), 5.0 + 64.0 * 48.0);
}
