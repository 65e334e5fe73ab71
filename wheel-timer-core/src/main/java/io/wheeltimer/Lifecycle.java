package io.wheeltimer;

import io.wheeltimer.HashedWheelTimer.State;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lifecycle of a timer, {@code INIT -> STARTED -> SHUTDOWN} (or {@code INIT -> SHUTDOWN}), in
 * the public {@link State} alone; a grace period of {@link HashedWheelTimer#stopGracefully} is not
 * a state of its own but a {@code STARTED} timer with a last tick set ({@link #graceEndTick()}):
 * from then on it refuses new timeouts, and its worker runs on to that tick. Also the start time,
 * which every deadline is measured from.
 *
 * <p>Thread safe: the front, producers and the worker call it concurrently.
 */
final class Lifecycle {

    /**
     * The state. Shared with the front's leak check, which must not reach the runtime (the runtime
     * reaches the front, so a leak check holding it would keep the front alive).
     */
    final AtomicReference<State> state = new AtomicReference<>(State.INIT);

    private final Ticker ticker;
    private final long tickNanos;
    /** Runs once, on the transition to {@code SHUTDOWN} (the front's instance count). */
    private final Runnable onShutdown;

    private final CountDownLatch startedLatch = new CountDownLatch(1);
    /**
     * The last tick the worker processes in a grace period: the first boundary at or after its end.
     * {@link TimingWheel#NO_TICK} until {@link #beginGrace} sets it, once; set, the timer refuses
     * new timeouts.
     */
    private final AtomicLong graceEndTick = new AtomicLong(TimingWheel.NO_TICK);
    /** Counted down once the worker fired what the grace period lets fire, or ended. */
    private final CountDownLatch graceOver = new CountDownLatch(1);

    private volatile long startNanos;
    /**
     * Set once by {@link #attach}, in the front's constructor (the worker needs the runtime first):
     * every other thread reaches it through the front's final field or a handle made later.
     */
    private Thread workerThread;

    Lifecycle(Ticker ticker, long tickNanos, Runnable onShutdown) {
        this.ticker = ticker;
        this.tickNanos = tickNanos;
        this.onShutdown = onShutdown;
    }

    /** Once, before the timer is used: the thread that will drive it. */
    void attach(Thread workerThread) {
        this.workerThread = workerThread;
    }

    Thread workerThread() {
        return workerThread;
    }

    /** Stopping from a task would wait for the worker to end, which waits for the task. */
    void checkNotOnWorker(String method) {
        if (Thread.currentThread() == workerThread) {
            throw new IllegalStateException("HashedWheelTimer." + method + " cannot be called from a TimerTask"
                    + " running on the timer's worker thread");
        }
    }

    State state() {
        return state.get();
    }

    /** Started and accepting new timeouts (not in a grace period). */
    boolean isAccepting() {
        return state.get() == State.STARTED && graceEndTick.get() == TimingWheel.NO_TICK;
    }

    /** Stopped, or its worker died: nothing fires any more. */
    boolean isStopped() {
        return state.get() == State.SHUTDOWN;
    }

    /** The worker runs: started, and not stopped (accepting timeouts or in a grace period). */
    boolean isActive() {
        return state.get() == State.STARTED;
    }

    /** Why a new timeout is refused now, the timer not accepting. */
    String refusal() {
        return state.get() == State.STARTED
                ? "cannot accept new timeouts: the timer is stopping"
                : "cannot be started once stopped";
    }

    /** Time since start in nanoseconds, never negative; the start time must be read ({@link #start}). */
    long elapsedNanos() {
        return Math.max(ticker.nanoTime() - startNanos, 0);
    }

    /** See {@link HashedWheelTimer#start()}. */
    void start() {
        State s;
        while ((s = state.get()) == State.INIT) {
            if (state.compareAndSet(State.INIT, State.STARTED)) {
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
        if (s == State.SHUTDOWN || graceEndTick.get() != TimingWheel.NO_TICK) {
            throw new IllegalStateException(refusal());
        }
        awaitStarted();
        if (!isAccepting()) {
            throw new IllegalStateException(refusal());
        }
    }

    /** Waits for the worker to read its start time, which every deadline is relative to. */
    void awaitStarted() {
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
    void started(long startNanos) {
        this.startNanos = startNanos;
        startedLatch.countDown();
    }

    /**
     * Not the worker thread: begins a grace period of {@code graceNanos} from now, unless one began
     * already, and waits until the worker has fired what it lets fire. Does nothing unless started.
     *
     * @param graceNanos > 0
     */
    void runGracePeriod(long graceNanos) {
        if (state.get() != State.STARTED) {
            return;
        }
        awaitStarted(); // the start time, which the end of the grace period is measured from
        long endNanos = saturatedAdd(elapsedNanos(), graceNanos);
        long endTick = endNanos / tickNanos + (endNanos % tickNanos == 0 ? 0 : 1);
        // The first call sets the end: the timer refuses new timeouts from then on, and the worker
        // runs on to it.
        if (graceEndTick.compareAndSet(TimingWheel.NO_TICK, endTick)) {
            ticker.wake(workerThread);
        }
        if (state.get() == State.STARTED) {
            try {
                graceOver.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // stop now, and keep the interrupt for the caller
            }
        }
    }

    /**
     * Worker thread, each round: the last tick it may process, {@link TimingWheel#NO_TICK} unless a
     * grace period began.
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
        if (state.getAndSet(State.SHUTDOWN) != State.SHUTDOWN) {
            onShutdown.run();
        }
    }

    /**
     * Not the worker thread: moves to {@code SHUTDOWN} and waits for the worker to end.
     *
     * @return whether this call stopped a started timer (whose worker then cancelled what never ran)
     */
    boolean stop() {
        State s;
        do {
            s = state.get();
            if (s == State.SHUTDOWN) {
                return false;
            }
        } while (!state.compareAndSet(s, State.SHUTDOWN));
        onShutdown.run();
        if (s == State.INIT) {
            startedLatch.countDown(); // no worker will: a racing start() then finds the timer stopped
            return false;
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
        return true; // the join gives the happens-before with the worker's writes
    }

    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
