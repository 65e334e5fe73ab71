package io.wheeltimer;

import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Timer} for very many approximate timeouts: request deadlines, idle and session
 * timeouts, "cancel the order if unpaid in 30 minutes". A drop-in replacement for Netty's
 * {@code io.netty.util.HashedWheelTimer}: the same constructors, defaults and behaviour, so code
 * written against Netty's compiles against this one by changing the imports.
 *
 * <p><b>Ticks.</b> One worker thread looks at the wheel once per tick ({@code tickDuration}, 100 ms
 * by default, at least 1 ms) and runs what is due. A timeout therefore fires at the first tick
 * boundary at or after its deadline: never early, and at most about one tick late while the worker
 * keeps up. Choose the tick as the precision you need, not finer: a finer tick costs more wake-ups.
 * A timer started at time {@code s} has its boundaries at {@code s + k * tickDuration}.
 *
 * <p><b>Costs.</b> {@code newTimeout} and {@link Timeout#cancel()} are O(1), lock-free and allocate
 * only the handle (about 48 bytes); they never wait for the worker. Each timeout is handled once
 * when it is taken into the wheel and once when it fires or is cancelled; a timeout cancelled before
 * the worker took it costs the worker nothing. With nothing pending the worker sleeps, and with
 * timeouts pending it sleeps until the next tick that has work, not every tick. In the flat layout
 * (Netty's), a timeout more than one rotation ({@code tickDuration * ticksPerWheel}) away is looked
 * at again each rotation; in the {@linkplain Builder#hierarchical hierarchical} layout it waits in
 * coarser overflow wheels and moves down at most once per level.
 *
 * <p><b>Limits.</b> Tasks run on the single worker thread unless a {@code taskExecutor} is given,
 * so a slow task delays every timeout of the timer: keep tasks short or give them an executor.
 * Each instance owns a thread: share one timer across the application instead of creating many
 * (more than 64 live instances log an error). This is not a scheduler for exact or recurring
 * times; use a {@code ScheduledExecutorService} for those.
 *
 * <pre>{@code
 * HashedWheelTimer timer = HashedWheelTimer.builder().name("request-deadlines").build();
 * Timeout timeout = timer.newTimeout(t -> request.fail("timed out"), Duration.ofSeconds(30));
 * ...
 * timeout.cancel();      // the response came in time
 * ...
 * timer.stop();          // on shutdown: returns what never ran
 * }</pre>
 *
 * <p>This class is the front: constructors and builder. Everything else is delegated to an
 * internal runtime, made of named parts, that one worker thread drives around the wheel.
 */
public class HashedWheelTimer implements Timer, AutoCloseable {

    /** The lifecycle of a timer: {@code INIT -> STARTED -> SHUTDOWN}, or {@code INIT -> SHUTDOWN}. */
    public enum State {
        /** Created; the worker starts on the first {@code newTimeout} or {@link #start()}. */
        INIT,
        /** The worker runs. */
        STARTED,
        /** Stopped (or its worker died): no more timeouts are accepted. */
        SHUTDOWN
    }

    /** Default tick duration, as in Netty. */
    public static final Duration DEFAULT_TICK_DURATION = Duration.ofMillis(100);
    /** Default number of buckets per wheel, as in Netty. */
    public static final int DEFAULT_TICKS_PER_WHEEL = 512;
    /** Largest number of buckets per wheel: 2^30. */
    public static final int MAX_TICKS_PER_WHEEL = 1 << 30;
    /** Default layout of {@link Builder#hierarchical(boolean)} and of the Netty constructors. */
    public static final boolean DEFAULT_HIERARCHICAL = true;

    /** How long {@link #upcoming} waits for a worker that is busy with a task. */
    static final int UPCOMING_WAIT_SECONDS = 2;

    private final String name;
    private final WheelSettings settings;
    /** Lifecycle, admission, hand-off, dispatch, counters and upcoming: everything but the settings. */
    final TimerRuntime runtime;
    /** Held for {@code upcoming} asked on the worker thread, and the probes of tests and benchmarks. */
    private final Worker worker;

    private final Cleaner.Cleanable cleanable;

    /** A timer with Netty's defaults: 100 ms ticks, 512 buckets, threads from {@link Executors#defaultThreadFactory()}. */
    public HashedWheelTimer() {
        this(Executors.defaultThreadFactory());
    }

    /** A timer with the given tick and 512 buckets. */
    public HashedWheelTimer(long tickDuration, TimeUnit unit) {
        this(Executors.defaultThreadFactory(), tickDuration, unit);
    }

    /** A timer with the given tick and buckets per wheel. */
    public HashedWheelTimer(long tickDuration, TimeUnit unit, int ticksPerWheel) {
        this(Executors.defaultThreadFactory(), tickDuration, unit, ticksPerWheel);
    }

    /** A timer with the given thread factory, 100 ms ticks and 512 buckets. */
    public HashedWheelTimer(ThreadFactory threadFactory) {
        this(threadFactory, DEFAULT_TICK_DURATION.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A timer with the given thread factory and tick, and 512 buckets. */
    public HashedWheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit) {
        this(threadFactory, tickDuration, unit, DEFAULT_TICKS_PER_WHEEL);
    }

    /** A timer with the given thread factory, tick and buckets per wheel. */
    public HashedWheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit, int ticksPerWheel) {
        this(threadFactory, tickDuration, unit, ticksPerWheel, true);
    }

    /**
     * A timer with the given thread factory, tick and buckets per wheel.
     *
     * @param leakDetection whether to log an error when the timer is garbage-collected without
     *     having been stopped
     */
    public HashedWheelTimer(
            ThreadFactory threadFactory, long tickDuration, TimeUnit unit, int ticksPerWheel, boolean leakDetection) {
        this(threadFactory, tickDuration, unit, ticksPerWheel, leakDetection, -1);
    }

    /**
     * A timer with the given thread factory, tick, buckets per wheel and limit of pending timeouts.
     *
     * @param maxPendingTimeouts pending timeouts allowed before {@code newTimeout} throws
     *     {@link RejectedExecutionException}; 0 or less for no limit
     */
    public HashedWheelTimer(
            ThreadFactory threadFactory,
            long tickDuration,
            TimeUnit unit,
            int ticksPerWheel,
            boolean leakDetection,
            long maxPendingTimeouts) {
        this(threadFactory, tickDuration, unit, ticksPerWheel, leakDetection, maxPendingTimeouts, Dispatch.ON_WORKER);
    }

    /**
     * A timer with every setting Netty's has.
     *
     * @param threadFactory makes the worker thread
     * @param tickDuration the length of a tick, at least 1 ms (shorter is raised to 1 ms)
     * @param unit the unit of {@code tickDuration}
     * @param ticksPerWheel buckets per wheel, 1 to 2^30, rounded up to a power of two
     * @param leakDetection whether to log an error when the timer is garbage-collected without
     *     having been stopped
     * @param maxPendingTimeouts pending timeouts allowed before {@code newTimeout} throws
     *     {@link RejectedExecutionException}; 0 or less for no limit
     * @param taskExecutor runs the tasks: the worker hands it each fired {@link Timeout} itself, as
     *     the {@code Runnable} that runs its task (see {@link Builder#taskExecutor})
     * @throws NullPointerException if {@code threadFactory}, {@code unit} or {@code taskExecutor} is null
     * @throws IllegalArgumentException if {@code tickDuration} is not positive, {@code ticksPerWheel}
     *     is out of range, or a tick times the wheel size overflows a long of nanoseconds
     */
    public HashedWheelTimer(
            ThreadFactory threadFactory,
            long tickDuration,
            TimeUnit unit,
            int ticksPerWheel,
            boolean leakDetection,
            long maxPendingTimeouts,
            Executor taskExecutor) {
        this(
                null,
                threadFactory,
                tickDuration,
                unit,
                ticksPerWheel,
                leakDetection,
                maxPendingTimeouts,
                taskExecutor,
                DEFAULT_HIERARCHICAL,
                Ticker.system());
    }

    private HashedWheelTimer(
            String name,
            ThreadFactory threadFactory,
            long tickDuration,
            TimeUnit unit,
            int ticksPerWheel,
            boolean leakDetection,
            long maxPendingTimeouts,
            Executor taskExecutor,
            boolean hierarchical,
            Ticker ticker) {
        this.settings = WheelSettings.check(threadFactory, tickDuration, unit, ticksPerWheel, taskExecutor, ticker);
        this.name = name;
        this.runtime = new TimerRuntime(
                this, ticker, settings.tickNanos(), maxPendingTimeouts, taskExecutor, LiveInstances::stopped);
        this.worker = new Worker(runtime, ticker, settings.tickNanos(), settings.ticksPerWheel(), hierarchical);
        runtime.lifecycle.attach(WheelSettings.workerThread(threadFactory, worker, name));
        this.cleanable = LiveInstances.register(this, runtime.lifecycle.state, leakDetection, String.valueOf(name));
    }

    /** A builder, for the settings Netty's constructors do not have. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the worker thread. Not needed: the first {@code newTimeout} starts it.
     *
     * @throws IllegalStateException if the timer was stopped
     */
    public void start() {
        runtime.lifecycle.start();
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(unit, "unit must not be null");
        return runtime.newTimeout(task, delay, unit);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here the timeout is the deadline's only object: {@link Timeout#task()} of it is the
     * timeout itself.
     */
    @Override
    public <T> CompletableFuture<T> orTimeout(CompletableFuture<T> future, Duration timeout) {
        return runtime.limit(future, FutureDeadline.FAIL, timeout);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here the timeout is the deadline's only object, as in {@link #orTimeout}.
     */
    @Override
    public <T> CompletableFuture<T> completeOnTimeout(CompletableFuture<T> future, T value, Duration timeout) {
        return runtime.limit(future, value, timeout);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits for the worker thread to end; a task running on it at the time finishes first. The
     * returned timeouts are cancelled and their tasks' {@link TimerTask#cancelled} has been called.
     */
    @Override
    public Set<Timeout> stop() {
        runtime.lifecycle.checkNotOnWorker("stop()");
        Set<Timeout> unprocessed = runtime.stop();
        cleanable.clean(); // the state is SHUTDOWN now: this only unregisters the leak check
        return unprocessed;
    }

    /**
     * Stops this timer after letting the timeouts due within {@code grace} fire: the graceful
     * shutdown of a timer.
     *
     * <ul>
     *   <li>From the call on, new timeouts are refused as after {@link #stop()}:
     *       {@code newTimeout} throws {@link IllegalStateException}. {@link #state()} stays
     *       {@code STARTED} until the timer stops, and cancelling still works.
     *   <li>Every pending timeout whose deadline falls within {@code grace} from now still fires,
     *       on time, as it would have without the call: on the worker thread, or handed to the
     *       task executor. So does the rest of the tick in which the period ends: the wheel runs on
     *       to the first tick boundary at or after the end of the period, and no further.
     *   <li>Then the timer stops as by {@link #stop()}, and the timeouts that never ran are
     *       returned, cancelled, their tasks told. It stops as soon as nothing pending is due by
     *       that boundary, so a timer with nothing due within the period stops at once; at the
     *       latest, at that boundary (a timeout cancelled during the period may keep it waiting
     *       until the cancelled one's own tick while others are pending).
     * </ul>
     *
     * <p>A task that holds the worker thread delays the timeouts behind it, which still fire once it
     * returns if they are due within the period; the call waits for them. An interrupt of the
     * waiting thread ends the grace period at once: the timer stops as by {@link #stop()}, and the
     * interrupt status is kept. {@code stop()} from another thread ends it too; this call then
     * returns an empty set, as a second {@code stop()} would. Time is the timer's {@link Ticker}: with a
     * {@link io.wheeltimer.testing.ManualTicker} the period passes only as the ticker is moved.
     * With a grace of zero, or on a timer that is not started, this is {@link #stop()}.
     *
     * @param grace how long from now timeouts may still fire: zero or more
     * @return the timeouts that never ran, each now cancelled; empty on a second call
     * @throws NullPointerException if {@code grace} is null
     * @throws IllegalArgumentException if {@code grace} is negative
     * @throws IllegalStateException if called from a task running on this timer's worker thread
     */
    // Not an overload of stop(): `executor.submit(timer::stop)` would no longer compile.
    public Set<Timeout> stopGracefully(Duration grace) {
        Objects.requireNonNull(grace, "grace must not be null");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must be zero or positive (a Duration >= 0), was " + grace);
        }
        if (grace.isZero()) {
            return stop();
        }
        runtime.lifecycle.checkNotOnWorker("stopGracefully(Duration)");
        Set<Timeout> unprocessed = runtime.stopGracefully(FutureDeadline.nanos(grace));
        cleanable.clean(); // the state is SHUTDOWN now: this only unregisters the leak check
        return unprocessed;
    }

    /**
     * Stops this timer, like {@link #stop()}, and discards the timeouts that never ran (they are
     * cancelled and their tasks told). Idempotent: closing a stopped timer does nothing, so a timer
     * can be used in try-with-resources and as a Spring bean whose destroy method is inferred.
     */
    @Override
    public void close() {
        stop();
    }

    /**
     * Sets the listener told how late each fired timeout's task starts, replacing any earlier one;
     * {@code null} removes it. It applies to timeouts that fire after the call.
     */
    public void setLatenessListener(LatenessListener listener) {
        runtime.dispatch.setLatenessListener(listener);
    }

    /**
     * Pending timeouts: scheduled, and neither started nor cancelled. As in Netty, a timeout stops
     * counting just before its task starts (or is handed to the task executor), so a task never
     * counts itself, nor does a thread it signals. Exact whenever no call is in flight.
     */
    public long pendingTimeouts() {
        return runtime.counters.pending();
    }

    /** One snapshot of this timer's counts; cheap enough to poll for metrics. */
    public TimerStats stats() {
        return runtime.stats(state());
    }

    /**
     * Up to {@code limit} pending timeouts, soonest deadline first, including those the worker has
     * not taken into the wheel yet. Safe from any thread: the worker answers between tasks, so the
     * call waits while a task runs on the worker thread, for {@value #UPCOMING_WAIT_SECONDS} seconds
     * at most. Costs O(pending) on the worker; meant for inspection, not for a hot path.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     * @throws IllegalStateException if a task has held the worker thread for longer than that
     */
    public List<TimeoutInfo> upcoming(int limit) {
        return runtime.upcoming.ask(limit, worker);
    }

    /** The worker thread's name, or the name given to the builder. */
    public String name() {
        return name != null ? name : workerThread().getName();
    }

    /** The length of a tick, after raising it to at least 1 ms. */
    public Duration tickDuration() {
        return Duration.ofNanos(settings.tickNanos());
    }

    /** Buckets per wheel, after rounding up to a power of two. */
    public int ticksPerWheel() {
        return settings.ticksPerWheel();
    }

    /** Pending timeouts allowed before {@code newTimeout} is refused; 0 or less: no limit. */
    public long maxPendingTimeouts() {
        return runtime.admission.maxPendingTimeouts();
    }

    /** Whether far-future timeouts wait in overflow wheels (see {@link Builder#hierarchical}). */
    public boolean isHierarchical() {
        return worker.isHierarchical();
    }

    /** The lifecycle state; {@code STARTED} also during the grace period of {@link #stopGracefully(Duration)}. */
    public State state() {
        return runtime.lifecycle.state();
    }

    @Override
    public String toString() {
        return "HashedWheelTimer(" + name() + ", " + state() + ")";
    }

    /** For tests and benchmarks ({@link WorkerProfile}): the worker. */
    Worker worker() {
        return worker;
    }

    Thread workerThread() {
        return runtime.lifecycle.workerThread();
    }

    /**
     * Builds a {@link HashedWheelTimer}. Defaults: name {@code wheel-timer}, a daemon worker thread
     * of that name, 100 ms ticks, 512 buckets, no pending limit, leak detection on, tasks run on the
     * worker thread, hierarchical layout {@value HashedWheelTimer#DEFAULT_HIERARCHICAL}, system time.
     */
    public static final class Builder {
        private String name = "wheel-timer";
        private ThreadFactory threadFactory;
        private Duration tickDuration = DEFAULT_TICK_DURATION;
        private int ticksPerWheel = DEFAULT_TICKS_PER_WHEEL;
        private long maxPendingTimeouts;
        private boolean leakDetection = true;
        private Executor taskExecutor = Dispatch.ON_WORKER;
        private boolean hierarchical = DEFAULT_HIERARCHICAL;
        private Ticker ticker = Ticker.system();

        private Builder() {}

        /** The worker thread's name, also the timer's name in metrics; not blank. */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name must not be null");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank, was \"" + name + "\"");
            }
            this.name = name;
            return this;
        }

        /** Makes the worker thread (which is then renamed to {@link #name}). */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory must not be null");
            return this;
        }

        /** The length of a tick: > 0, and raised to 1 ms if shorter. */
        public Builder tickDuration(Duration tickDuration) {
            Objects.requireNonNull(tickDuration, "tickDuration must not be null");
            if (tickDuration.isNegative() || tickDuration.isZero()) {
                throw new IllegalArgumentException("tickDuration must be > 0, was " + tickDuration);
            }
            this.tickDuration = tickDuration;
            return this;
        }

        /** Buckets per wheel: 1 to 2^30, rounded up to a power of two. */
        public Builder ticksPerWheel(int ticksPerWheel) {
            this.ticksPerWheel = ticksPerWheel;
            return this;
        }

        /** Pending timeouts allowed before {@code newTimeout} is refused; 0 or less: no limit. */
        public Builder maxPendingTimeouts(long maxPendingTimeouts) {
            this.maxPendingTimeouts = maxPendingTimeouts;
            return this;
        }

        /** Whether to log an error when the timer is garbage-collected without having been stopped. */
        public Builder leakDetection(boolean leakDetection) {
            this.leakDetection = leakDetection;
            return this;
        }

        /**
         * Runs the tasks; by default they run on the worker thread.
         *
         * <p>When a timeout fires, the worker hands the executor the {@link Timeout} itself: the
         * {@code Runnable} passed to {@link Executor#execute} is always a {@code Timeout} of this
         * timer, so an executor may look at it to decide where to run it (its {@link
         * Timeout#task()} is the {@link TimerTask} given to {@code newTimeout}). When it fires, the
         * timeout is already expired ({@link Timeout#isExpired()} is true, {@link Timeout#cancel()}
         * returns false) and no longer counts as pending. Running that {@code Runnable}, on any
         * thread and at most once, runs the task with the timeout as its argument, tells the
         * {@linkplain HashedWheelTimer#setLatenessListener lateness listener} how late it starts, and counts the
         * task as failed if it throws (the exception is logged, not rethrown). An executor that
         * refuses it (throws from {@code execute}) has the task counted as failed and never run; an
         * executor that drops it silently has it never run, uncounted.
         */
        public Builder taskExecutor(Executor taskExecutor) {
            this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor must not be null");
            return this;
        }

        /**
         * Whether timeouts more than one rotation ({@code tickDuration * ticksPerWheel}) away wait
         * in coarser overflow wheels and cascade down, instead of being looked at every rotation.
         * The firing rules are the same either way.
         */
        public Builder hierarchical(boolean hierarchical) {
            this.hierarchical = hierarchical;
            return this;
        }

        /** The time source; {@link io.wheeltimer.testing.ManualTicker} for deterministic tests. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
            return this;
        }

        /**
         * Builds the timer; its worker starts on the first {@code newTimeout}.
         *
         * @throws IllegalArgumentException if {@code ticksPerWheel} is out of range, or a tick times
         *     the wheel size overflows a long of nanoseconds
         */
        public HashedWheelTimer build() {
            long tickNanos;
            try {
                tickNanos = tickDuration.toNanos();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        "tickDuration must fit in a long of nanoseconds, was " + tickDuration, e);
            }
            ThreadFactory factory = threadFactory != null ? threadFactory : daemonThreads(name);
            return new HashedWheelTimer(
                    name,
                    factory,
                    tickNanos,
                    TimeUnit.NANOSECONDS,
                    ticksPerWheel,
                    leakDetection,
                    maxPendingTimeouts,
                    taskExecutor,
                    hierarchical,
                    ticker);
        }

        private static ThreadFactory daemonThreads(String name) {
            return runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            };
        }
    }
}
