package io.wheeltimer;

import io.wheeltimer.internal.RepeatLog;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The runtime of a {@link HashedWheelTimer}, between its public front and its {@link Worker}: the
 * one object that owns the hand-off to the worker (the two {@link TimeoutStack}s, the upcoming
 * queries and the wake-up protocol), the counters, the lifecycle and the dispatch of due tasks.
 *
 * <p>Dependencies point one way: the front holds the runtime and the worker; the worker drives
 * the runtime and owns the {@link TimingWheel}; a {@link TimeoutHandle} sees the runtime only as a
 * {@link TimeoutOwner}. The runtime knows the worker only as its thread, and the front only as a
 * {@link Timer} (for {@link Timeout#timer()} and log lines).
 *
 * <p>Thread safe: producers, cancellers and executor threads call it concurrently with the worker.
 */
final class TimerRuntime implements TimeoutOwner {

    /** The logger of the timer: one name for everything it logs, whichever class logs it. */
    static final System.Logger LOG = System.getLogger("io.wheeltimer.HashedWheelTimer");

    /** Lifecycle states; {@link HashedWheelTimer#state()} names them. Created, not started. */
    static final int INIT = 0;
    /** The worker runs and new timeouts are accepted. */
    static final int STARTED = 1;
    /** Stopped, or the worker died: no timeout is accepted or fires any more. */
    static final int SHUTDOWN = 2;
    /**
     * In the grace period of {@link #stopGracefully(long)}: new timeouts are refused, the worker runs on to
     * {@link #graceEndTick}. Public: still {@code STARTED}.
     */
    static final int STOPPING = 3;

    /** {@link #wakeAt} while the worker runs: it looks at the hand-off stacks before it sleeps. */
    static final long AWAKE = Long.MIN_VALUE;
    /** {@link #wakeAt} while the worker sleeps with no deadline. */
    static final long IDLE = Long.MAX_VALUE;

    /** Repeated refusals and task failures are logged as one count per this interval. */
    static final long REPEAT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Stripes of the new timeouts (a power of two). */
    static final int STRIPES = 8;
    /** Marks "run tasks on the worker thread", which needs no executor call. */
    static final Executor ON_WORKER = Runnable::run;

    private final Timer front;
    private final Ticker ticker;
    private final long tickNanos;
    private final long maxPendingTimeouts;
    private final Executor taskExecutor;
    /** Runs once, on the transition to {@code SHUTDOWN} (the front's instance count). */
    private final Runnable onShutdown;
    /**
     * Set once by {@link #attach}, in the front's constructor (the worker needs the runtime first):
     * every other thread reaches the runtime through the front's final field or a handle made later.
     */
    private Thread workerThread;

    /**
     * The lifecycle state. Shared with the front's leak check, which must not reach the runtime
     * (the runtime reaches the front, so a leak check holding it would keep the front alive).
     */
    final AtomicInteger state = new AtomicInteger(INIT);

    private final CountDownLatch startedLatch = new CountDownLatch(1);
    /**
     * The last tick the worker processes while {@link #STOPPING}: the first boundary at or after the
     * end of the grace period. {@link TimingWheel#NO_TICK} until {@link #stopGracefully(long)} sets it, once.
     */
    private final AtomicLong graceEndTick = new AtomicLong(TimingWheel.NO_TICK);
    /** Counted down once the worker fired what the grace period lets fire, or ended. */
    private final CountDownLatch graceOver = new CountDownLatch(1);

    private volatile long startTime;
    /** Read once per fired batch; null (the default) costs one volatile read. */
    private volatile LatenessListener latenessListener;

    // --- the hand-off ----------------------------------------------------------------------

    /**
     * The new timeouts, striped by the scheduling thread (one stripe per thread, so a thread's own
     * timeouts stay in the order it scheduled them): producers on different threads do not contend
     * for one top, and a thread that cancels what it just scheduled finds it on top of its stripe
     * and takes it back. Each drops, when taken, what was cancelled or withdrawn before the worker
     * took it.
     */
    private final TimeoutStack[] newTimeouts = new TimeoutStack[STRIPES];
    /** Worker only: the stripe the next take starts at, so that a busy stripe cannot starve the others. */
    private int firstStripe;

    final TimeoutStack cancelledTimeouts = new TimeoutStack();
    private final ConcurrentLinkedQueue<UpcomingQuery> queries = new ConcurrentLinkedQueue<>();
    /** Time since start (ns) at which the sleeping worker wakes; {@link #AWAKE} or {@link #IDLE}. */
    private volatile long wakeAt = AWAKE;
    /** Time since start (ns) of the work the worker is on or sleeps until ({@link #IDLE}: none). */
    private volatile long dueAt = IDLE;

    private volatile long publishedTick;
    /** What stop() cancelled; the worker's alone until it ends. */
    private final Set<Timeout> unprocessed = new HashSet<>();

    // --- the counters ----------------------------------------------------------------------

    private final LongAdder scheduled = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder failed = new LongAdder();
    /** Written by the worker alone, per timeout, just before its task starts. */
    private final AtomicLong expired = new AtomicLong();
    /** Pending count for the {@code maxPendingTimeouts} limit; maintained only when there is one. */
    private final AtomicLong admitted;
    /**
     * Worker only: what the task executor, an {@link ExecutorService}, threw once it was shut down.
     * By the {@code ExecutorService} contract a shut-down service takes no new task, so later due
     * tasks are not offered to it: each is counted and reported as a repeat of this refusal. A
     * service's refusal may build an exception with a stack trace each time, which at thousands of
     * timeouts due at once would stall the worker (as a pool shut down before its timer does).
     */
    private Throwable shutDownRefusal;

    /** Refusals and task failures: the first logged in full, repeats counted (a flood must not stall the worker). */
    private final RepeatLog refusals;

    private final RepeatLog taskFailures;

    /**
     * @param front the public timer, for {@link Timeout#timer()} and log lines
     * @param maxPendingTimeouts 0 or less for no limit
     * @param taskExecutor {@link #ON_WORKER} to run tasks on the worker thread
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
        this.ticker = ticker;
        this.tickNanos = tickNanos;
        this.maxPendingTimeouts = maxPendingTimeouts;
        this.admitted = maxPendingTimeouts > 0 ? new AtomicLong() : null;
        this.taskExecutor = taskExecutor;
        this.onShutdown = onShutdown;
        for (int i = 0; i < STRIPES; i++) {
            newTimeouts[i] = new TimeoutStack(true);
        }
        this.refusals =
                new RepeatLog(LOG, "tasks refused by the task executor", REPEAT_LOG_INTERVAL_NANOS, ticker::nanoTime);
        this.taskFailures =
                new RepeatLog(LOG, "exceptions thrown by TimerTasks", REPEAT_LOG_INTERVAL_NANOS, ticker::nanoTime);
    }

    /** Once, before the runtime is used: the thread that will drive it. */
    void attach(Thread workerThread) {
        this.workerThread = workerThread;
    }

    Thread workerThread() {
        return workerThread;
    }

    @Override
    public Timer timer() {
        return front;
    }

    @Override
    public String toString() {
        return String.valueOf(front);
    }

    // --- lifecycle -------------------------------------------------------------------------

    int state() {
        return state.get();
    }

    /** Started and accepting new timeouts. */
    boolean isRunning() {
        return state.get() == STARTED;
    }

    /** Stopped, or its worker died: nothing fires any more. */
    boolean isStopped() {
        return state.get() == SHUTDOWN;
    }

    /** The worker runs: started, and not stopped (accepting timeouts or in a grace period). */
    boolean isActive() {
        int s = state.get();
        return s == STARTED || s == STOPPING;
    }

    /** Why a new timeout is refused in state {@code s} (not {@code STARTED}). */
    private static String refusal(int s) {
        return s == STOPPING ? "cannot accept new timeouts: the timer is stopping" : "cannot be started once stopped";
    }

    /** See {@link HashedWheelTimer#start()}. */
    void start() {
        int s;
        while ((s = state.get()) == INIT) {
            if (state.compareAndSet(INIT, STARTED)) {
                try {
                    workerThread.start();
                } catch (Throwable t) {
                    markStopped();
                    startedLatch.countDown();
                    throw t;
                }
                break;
            }
            // Lost to another start() (STARTED) or to stop() (SHUTDOWN): look again.
        }
        if (s == SHUTDOWN || s == STOPPING) {
            throw new IllegalStateException(refusal(s));
        }
        awaitStarted();
        if ((s = state.get()) != STARTED) {
            throw new IllegalStateException(refusal(s));
        }
    }

    /** Waits for the worker to read its start time, which every deadline is relative to. */
    private void awaitStarted() {
        boolean interrupted = false;
        while (startedLatch.getCount() != 0) {
            try {
                startedLatch.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Worker thread: it read its start time (or failed to: then it stopped first). */
    void started(long startTime) {
        this.startTime = startTime;
        startedLatch.countDown();
    }

    /**
     * See {@link HashedWheelTimer#stopGracefully(Duration)}; not from the worker thread.
     *
     * @param graceNanos > 0
     */
    Set<Timeout> stopGracefully(long graceNanos) {
        int s = state.get();
        if (s == STARTED || s == STOPPING) {
            awaitStarted(); // the start time, which the end of the grace period is measured from
            long end = saturatedAdd(Math.max(ticker.nanoTime() - startTime, 0), graceNanos);
            long endTick = end / tickNanos + (end % tickNanos == 0 ? 0 : 1);
            // The first call sets the end; the state moves once the end is set, so the worker that
            // sees STOPPING sees the end too.
            graceEndTick.compareAndSet(TimingWheel.NO_TICK, endTick);
            if (state.compareAndSet(STARTED, STOPPING)) {
                ticker.wake(workerThread);
            }
            if (state.get() == STOPPING) {
                awaitGraceOver();
            }
        }
        return stop();
    }

    /** Waits for the worker to have fired what the grace period lets fire; an interrupt ends the wait. */
    private void awaitGraceOver() {
        try {
            graceOver.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop now, and keep the interrupt for the caller
        }
    }

    /**
     * Worker thread, each round: the last tick it may process, {@link TimingWheel#NO_TICK} unless
     * {@link #stopGracefully(long)} set the end of a grace period.
     */
    long graceEndTick() {
        return graceEndTick.get();
    }

    /** Worker thread: it fired everything due up to {@link #graceEndTick()}, or it ends. */
    void graceOver() {
        graceOver.countDown();
    }

    /** Stops without the worker: it could not start, or it died. */
    void markStopped() {
        if (state.getAndSet(SHUTDOWN) != SHUTDOWN) {
            onShutdown.run();
        }
    }

    /** See {@link HashedWheelTimer#stop()}; not from the worker thread. */
    Set<Timeout> stop() {
        int s;
        do {
            s = state.get();
            if (s == SHUTDOWN) {
                return Set.of();
            }
        } while (!state.compareAndSet(s, SHUTDOWN));
        onShutdown.run();
        if (s == INIT) {
            startedLatch.countDown(); // no worker will: a racing start() then finds the timer stopped
            return Set.of();
        }
        awaitStarted(); // a concurrent start() may still be starting the thread
        boolean interrupted = false;
        while (workerThread.isAlive()) {
            ticker.wake(workerThread);
            try {
                workerThread.join(100);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        // The join gives the happens-before with the worker's writes.
        return Collections.unmodifiableSet(unprocessed);
    }

    // --- producers -------------------------------------------------------------------------

    /** See {@link HashedWheelTimer#newTimeout}; the arguments are checked. */
    Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        long now = admit();
        return publish(new TimeoutHandle(this, task, deadline(now, unit.toNanos(delay))), now);
    }

    /**
     * See {@link HashedWheelTimer#orTimeout}: as {@link FutureDeadline#limit}, with the timeout as
     * the deadline's only object.
     */
    <T> CompletableFuture<T> limit(CompletableFuture<T> future, Object value, Duration timeout) {
        if (!FutureDeadline.needsDeadline(future, timeout)) {
            return future;
        }
        long now = admit();
        DeadlineHandle<T> handle = new DeadlineHandle<>(
                this, deadline(now, FutureDeadline.nanos(timeout)), future, FutureDeadline.onExpiry(value, timeout));
        publish(handle, now);
        // Runs at once if the future completed meanwhile: the timeout is cancelled either way.
        future.handle(handle);
        return future;
    }

    /**
     * Admits one more timeout (counted against the maximum, the worker started); {@link #publish}
     * must follow.
     *
     * @return the time now, in nanoseconds since the start
     */
    private long admit() {
        if (admitted != null) {
            long pending = admitted.incrementAndGet();
            if (pending > maxPendingTimeouts) {
                admitted.decrementAndGet();
                rejected.increment();
                throw new RejectedExecutionException("Number of pending timeouts (" + pending
                        + ") is greater than or equal to maximum allowed pending timeouts ("
                        + maxPendingTimeouts + ")");
            }
        }
        try {
            start();
        } catch (RuntimeException | Error e) {
            release();
            throw e;
        }
        return Math.max(ticker.nanoTime() - startTime, 0);
    }

    private static long deadline(long now, long delayNanos) {
        // A delay <= 0 runs on the next tick: 1 ns from now is due at the next boundary.
        return delayNanos <= 0 ? saturatedAdd(now, 1) : saturatedAdd(now, delayNanos);
    }

    /** Hands an admitted timeout, admitted at {@code now}, to the worker. */
    private Timeout publish(TimeoutHandle handle, long now) {
        boolean wasEmpty = ownStripe().push(handle);
        // If a stop raced this call, either the worker took the handle (then it fires within the
        // grace period or is in the set stop() returns) or it never will: then withdraw it, so
        // nothing is lost.
        int s = state.get();
        if (s != STARTED && handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.WITHDRAWN)) {
            release();
            throw new IllegalStateException(refusal(s));
        }
        // Counted once it is surely accepted, so that the count never goes down.
        scheduled.increment();
        long wake = wakeAt; // AWAKE once the worker has ended: no wake then
        long deadline = handle.deadline;
        if (wake != AWAKE && (deadline <= wake - tickNanos || wasEmpty && wake - now > tickNanos)) {
            ticker.wake(workerThread);
        }
        return handle;
    }

    /** The stripe of the new timeouts that this thread pushes to. */
    private TimeoutStack ownStripe() {
        long id = Thread.currentThread().getId();
        return newTimeouts[(int) ((id * 0x9E3779B97F4A7C15L) >>> 61) & (STRIPES - 1)];
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    @Override
    public void onCancelled(TimeoutHandle handle, boolean inWheel) {
        cancelled.increment();
        release();
        if (!inWheel) {
            // Not taken yet: if still the newest of this thread's stripe (it scheduled it just now),
            // take it back, so that the worker never sees it. On any other stripe this fails.
            ownStripe().popIfTop(handle);
        } else if (cancelledTimeouts.push(handle)) {
            // First cancel since the worker last looked: make sure it looks within a tick.
            long wake = wakeAt;
            if (wake != AWAKE && wake - (ticker.nanoTime() - startTime) > tickNanos) {
                ticker.wake(workerThread);
            }
        }
        notifyCancelled(handle);
    }

    /** Worker thread, on stop: cancels a timeout that never ran and keeps it for {@link #stop()}. */
    void cancelForStop(TimeoutHandle handle) {
        if (handle.cancelForStop()) {
            unprocessed.add(handle);
            cancelled.increment();
            release();
            notifyCancelled(handle);
        }
    }

    private void notifyCancelled(TimeoutHandle handle) {
        try {
            handle.task().cancelled(handle);
        } catch (Throwable t) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "An exception was thrown by TimerTask.cancelled() of " + handle.describeTask(),
                    t);
        }
    }

    /** A timeout left the pending state. */
    private void release() {
        if (admitted != null) {
            admitted.decrementAndGet();
        }
    }

    // --- the worker's side of the hand-off -------------------------------------------------

    /**
     * Worker thread: hands over new timeouts, about {@code limit} work in all (see {@link
     * TimeoutStack#handOver}), starting at another stripe each time. Unless a take is still being
     * handed over ({@link #takingNew}), it first takes every stripe off at once: one snapshot, so
     * that once it is handed over entirely, everything scheduled before the worker read the clock for
     * the round that took it is in the wheel.
     *
     * @return whether there was anything
     */
    boolean takeNew(Consumer<TimeoutHandle> action, int limit) {
        boolean any = false;
        if (!takingNew()) {
            for (TimeoutStack stripe : newTimeouts) {
                any |= stripe.grab();
            }
        }
        int budget = limit;
        int first = firstStripe++;
        for (int k = 0; k < STRIPES && budget > 0; k++) {
            int work = newTimeouts[(first + k) & (STRIPES - 1)].handOver(action, budget);
            any |= work > 0;
            budget -= work;
        }
        return any;
    }

    /** Worker thread: whether new timeouts it took off the stripes are not all handed over yet. */
    boolean takingNew() {
        for (TimeoutStack stripe : newTimeouts) {
            if (stripe.isTaking()) {
                return true;
            }
        }
        return false;
    }

    /** Worker thread: hands over at most {@code limit} timeouts cancelled in the wheel. */
    boolean takeCancelled(Consumer<TimeoutHandle> action, int limit) {
        return cancelledTimeouts.take(action, limit) > 0;
    }

    /** Worker thread: whether producers handed off something (or a query) since the worker last looked. */
    boolean hasHandOffs() {
        return hasNewTimeouts() || !cancelledTimeouts.isEmpty() || !queries.isEmpty();
    }

    /** Whether new timeouts wait to be taken (worker thread; tests read it while the worker is held). */
    boolean hasNewTimeouts() {
        for (TimeoutStack stripe : newTimeouts) {
            if (!stripe.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Worker thread: visits the new timeouts not taken yet, for {@code upcoming}. */
    void forEachNotTaken(Consumer<TimeoutHandle> action) {
        for (TimeoutStack stripe : newTimeouts) {
            stripe.forEach(action);
        }
    }

    /** Worker thread, on stop: cancels what is still handed off and answers waiting queries with nothing. */
    void drainForStop() {
        for (TimeoutStack stripe : newTimeouts) {
            stripe.takeAll(this::cancelForStop);
        }
        cancelledTimeouts.takeAll(handle -> {});
        for (UpcomingQuery query; (query = queries.poll()) != null; ) {
            query.result.complete(List.of());
        }
    }

    /** Worker thread: it sleeps until {@code wake} (time since start, or {@link #IDLE}); producers read it. */
    void sleepingUntil(long wake) {
        wakeAt = wake;
    }

    /** Worker thread: it is awake, and looks at the hand-offs before it sleeps again. */
    void awake() {
        wakeAt = AWAKE;
    }

    /** Worker thread: the tick it has advanced to, for {@link #tick()}. */
    void publishTick(long tick) {
        publishedTick = tick;
    }

    /** Worker thread: time since start (ns) of the work it is on or sleeps until ({@link #IDLE}: none). */
    void dueAt(long due) {
        dueAt = due;
    }

    // --- dispatch --------------------------------------------------------------------------

    void setLatenessListener(LatenessListener listener) {
        this.latenessListener = listener;
    }

    LatenessListener latenessListener() {
        return latenessListener;
    }

    /**
     * Worker thread: an expired timeout's task goes to its executor (or runs right here).
     *
     * @param listener the lateness listener read for this batch, or null
     * @param clock time since start (ns) read for this batch, for a task run here
     */
    void dispatch(TimeoutHandle handle, LatenessListener listener, long clock) {
        release();
        // Expired before its task starts, as Netty counts it: neither the task nor a thread it
        // signals still sees it pending. One ordered store of a line the worker alone writes; the
        // executor's hand-off publishes it to the task's thread.
        expired.lazySet(expired.get() + 1);
        if (taskExecutor == ON_WORKER) {
            if (listener != null) {
                reportLateness(listener, clock - handle.deadline);
            }
            runTaskBody(handle);
            return;
        }
        Throwable refusal = shutDownRefusal;
        if (refusal == null || !((ExecutorService) taskExecutor).isShutdown()) {
            try {
                // The handle itself: the executor gets the Timeout as its Runnable (see Builder.taskExecutor).
                taskExecutor.execute(handle);
                return;
            } catch (Throwable t) {
                refusal = t;
                if (taskExecutor instanceof ExecutorService service && service.isShutdown()) {
                    shutDownRefusal = t;
                }
            }
        }
        failed.increment();
        Throwable thrown = refusal;
        refusals.report(
                () -> "The task executor refused the expired task " + handle.describeTask() + "; it does not run",
                thrown);
    }

    /** Runs the task on the executor's thread, which reads the clock for the lateness itself. */
    @Override
    public void runTask(TimeoutHandle handle) {
        LatenessListener listener = latenessListener;
        if (listener != null) {
            reportLateness(listener, ticker.nanoTime() - startTime - handle.deadline);
        }
        runTaskBody(handle);
    }

    private void runTaskBody(TimeoutHandle handle) {
        try {
            handle.task().run(handle);
        } catch (Throwable t) {
            failed.increment();
            taskFailures.report(() -> "An exception was thrown by TimerTask " + handle.describeTask(), t);
        }
    }

    private void reportLateness(LatenessListener listener, long late) {
        try {
            listener.onRun(Math.max(late, 0));
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "The lateness listener of " + front + " threw", t);
        }
    }

    /** Worker thread, once per round and on stop: logs the counts of repeated refusals and failures when due. */
    void flushLogs(boolean force) {
        refusals.flush(force);
        taskFailures.flush(force);
    }

    /** Ticker time at which a summary of repeated failures is due; {@code Long.MAX_VALUE}: none. */
    long nextLogFlush() {
        return Math.min(refusals.nextFlushAt(), taskFailures.nextFlushAt());
    }

    // --- counts ----------------------------------------------------------------------------

    long scheduled() {
        return scheduled.sum();
    }

    long expired() {
        return expired.get();
    }

    long cancelled() {
        return cancelled.sum();
    }

    long rejected() {
        return rejected.sum();
    }

    long failed() {
        return failed.sum();
    }

    /**
     * Pending timeouts: scheduled, and neither started (or handed to the task executor) nor
     * cancelled. Exact whenever no call is in flight.
     */
    long pending() {
        long expiredCount = expired.get();
        long cancelledCount = cancelled.sum();
        return pending(scheduled.sum(), expiredCount, cancelledCount);
    }

    /**
     * Pending from the three counts, the scheduled one read last: a timeout is counted as scheduled
     * just after it is handed off, so in flight the worker may count it as expired or cancelled
     * first; pending is then held at zero for that instant.
     */
    static long pending(long scheduled, long expired, long cancelled) {
        return Math.max(scheduled - expired - cancelled, 0);
    }

    /** The tick the worker has advanced to. */
    long tick() {
        return publishedTick;
    }

    /** How late the worker is on the work it is on or should have woken for. */
    Duration tickLag() {
        long due = dueAt;
        if (due == IDLE || !isActive()) {
            return Duration.ZERO;
        }
        long late = ticker.nanoTime() - startTime - due;
        return late > 0 ? Duration.ofNanos(late) : Duration.ZERO;
    }

    // --- upcoming --------------------------------------------------------------------------

    /** A request for the upcoming timeouts from another thread, answered by the worker. */
    static final class UpcomingQuery {
        final int limit;
        final CompletableFuture<List<TimeoutInfo>> result = new CompletableFuture<>();

        UpcomingQuery(int limit) {
            this.limit = limit;
        }
    }

    /** Worker thread: the next query waiting for an answer, or null. */
    UpcomingQuery pollQuery() {
        return queries.poll();
    }

    /**
     * Not the worker thread: asks the worker for up to {@code limit} upcoming timeouts and waits for
     * its answer, {@value HashedWheelTimer#UPCOMING_WAIT_SECONDS} seconds at most; see {@link HashedWheelTimer#upcoming}.
     */
    List<TimeoutInfo> upcoming(int limit) {
        UpcomingQuery query = new UpcomingQuery(limit);
        queries.add(query);
        ticker.wake(workerThread);
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(HashedWheelTimer.UPCOMING_WAIT_SECONDS);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return query.result.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!workerThread.isAlive()) {
                        return List.of(); // stopped before it saw the query
                    }
                    if (System.nanoTime() - giveUp > 0) {
                        throw new IllegalStateException("The worker thread of " + front + " has not answered within "
                                + HashedWheelTimer.UPCOMING_WAIT_SECONDS + " s: a task is holding it (see tickLag)");
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("upcoming failed on the worker", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
