package io.wheeltimer;

import io.wheeltimer.internal.Notice;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The runtime of a {@link HashedWheelTimer}, between its public front and its {@link Worker}: the
 * one owner that composes the parts a timer is made of, each a class of its own, and routes a
 * timeout's events through them.
 *
 * <pre>
 *   front ──> TimerRuntime ──> Lifecycle   INIT -> STARTED -> SHUTDOWN, the grace period, the start time
 *                 │        ──> Admission   the pending limit, the lazy start, the deadline, publishing
 *                 │        ──> HandOff     the stacks to the worker and the wake-up protocol
 *                 │        ──> Dispatch    tasks to the executor, lateness, cancelled(), failures logged
 *                 │        ──> Counters    scheduled, expired, cancelled, rejected, failed; pending
 *                 │        ──> Upcoming    queries from other threads, answered by the worker
 *   Worker ── drives the parts each round, owns the TimingWheel
 * </pre>
 *
 * <p>Dependencies point one way: the front holds the runtime and the worker; the worker drives
 * the parts and owns the {@link TimingWheel}; a {@link TimeoutHandle} sees the runtime only as a
 * {@link TimeoutOwner}. The runtime knows the worker only as its thread, and the front only as a
 * {@link Timer} (for {@link Timeout#timer()} and log lines). A task that is a module's {@link
 * Notice} is run like any other but is not one of the timer's timeouts: no count, limit, {@code
 * upcoming} nor {@code stop()} set sees it.
 *
 * <p>Thread safe: producers, cancellers and executor threads call it concurrently with the worker.
 */
final class TimerRuntime implements TimeoutOwner {

    /** The logger of the timer: one name for everything it logs, whichever class logs it. */
    static final System.Logger LOG = System.getLogger("io.wheeltimer.HashedWheelTimer");

    final Lifecycle lifecycle;
    final HandOff handOff;
    final Counters counters = new Counters();
    final Admission admission;
    final Dispatch dispatch;
    final Upcoming upcoming;

    private final Timer front;
    /** What stop() cancelled; the worker's alone until it ends. */
    private final Set<Timeout> unprocessed = new HashSet<>();

    /**
     * @param front the public timer, for {@link Timeout#timer()} and log lines
     * @param maxPendingTimeouts 0 or less for no limit
     * @param taskExecutor {@link Dispatch#ON_WORKER} to run tasks on the worker thread
     * @param onShutdown runs once, when the state becomes {@code SHUTDOWN} through this runtime
     */
    TimerRuntime(
            Timer front,
            Ticker ticker,
            long tickNanos,
            long maxPendingTimeouts,
            Executor taskExecutor,
            Runnable onShutdown) {
        this.front = front;
        this.lifecycle = new Lifecycle(ticker, tickNanos, onShutdown);
        this.handOff = new HandOff(ticker, tickNanos, lifecycle);
        this.admission = new Admission(lifecycle, handOff, counters, maxPendingTimeouts);
        this.dispatch = new Dispatch(front, ticker, lifecycle, admission, counters, taskExecutor);
        this.upcoming = new Upcoming(front, ticker, lifecycle);
    }

    @Override
    public Timer timer() {
        return front;
    }

    @Override
    public String toString() {
        return String.valueOf(front);
    }

    /** See {@link HashedWheelTimer#newTimeout}; the arguments are checked. */
    Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        boolean counted = !(task instanceof Notice);
        long nowNanos = admission.admit(counted);
        long deadlineNanos = Admission.deadlineNanos(nowNanos, unit.toNanos(delay));
        return admission.publish(new TimeoutHandle(this, task, deadlineNanos, counted), nowNanos);
    }

    /**
     * See {@link HashedWheelTimer#orTimeout}: as {@link FutureDeadline#limit}, with the timeout as
     * the deadline's only object.
     */
    <T> CompletableFuture<T> limit(CompletableFuture<T> future, Object value, Duration timeout) {
        if (!FutureDeadline.needsDeadline(future, timeout)) {
            return future;
        }
        long nowNanos = admission.admit(true);
        DeadlineHandle<T> handle = new DeadlineHandle<>(
                this,
                Admission.deadlineNanos(nowNanos, FutureDeadline.nanos(timeout)),
                future,
                FutureDeadline.onExpiry(value, timeout));
        admission.publish(handle, nowNanos);
        // Runs at once if the future completed meanwhile: the timeout is cancelled either way.
        future.handle(handle);
        return future;
    }

    /** See {@link HashedWheelTimer#stop()}; not from the worker thread. */
    Set<Timeout> stop() {
        return lifecycle.stop() ? Collections.unmodifiableSet(unprocessed) : Set.of();
    }

    /**
     * See {@link HashedWheelTimer#stopGracefully(Duration)}; not from the worker thread.
     *
     * @param graceNanos > 0
     */
    Set<Timeout> stopGracefully(long graceNanos) {
        lifecycle.runGracePeriod(graceNanos);
        return stop();
    }

    @Override
    public void onCancelled(TimeoutHandle handle, boolean inWheel) {
        if (handle.counted) {
            counters.cancelled.increment();
            admission.release(true);
        }
        handOff.cancelled(handle, inWheel);
        dispatch.tellCancelled(handle);
    }

    @Override
    public void runTask(TimeoutHandle handle) {
        dispatch.runTask(handle);
    }

    /** Worker thread, on stop: cancels a timeout that never ran and keeps it for {@link #stop()}. */
    void cancelForStop(TimeoutHandle handle) {
        if (handle.cancelForStop()) {
            if (handle.counted) {
                unprocessed.add(handle);
                counters.cancelled.increment();
                admission.release(true);
            }
            dispatch.tellCancelled(handle);
        }
    }

    /** Worker thread, on stop: cancels what is still handed off and answers waiting queries with nothing. */
    void drainForStop() {
        handOff.drain(this::cancelForStop);
        upcoming.drain();
    }

    /** One snapshot of the counts, for {@link HashedWheelTimer#stats()}. */
    TimerStats stats(HashedWheelTimer.State state) {
        return counters.snapshot(handOff.tick(), Duration.ofNanos(handOff.lagNanos()), state);
    }
}
