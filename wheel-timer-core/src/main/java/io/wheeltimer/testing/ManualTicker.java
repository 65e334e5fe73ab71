package io.wheeltimer.testing;

import io.wheeltimer.Ticker;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Ticker} whose time moves only when told, for tests without sleeps:
 *
 * <pre>{@code
 * ManualTicker ticker = new ManualTicker();
 * HashedWheelTimer timer = HashedWheelTimer.builder().ticker(ticker).build();
 * timer.newTimeout(task, Duration.ofSeconds(30));
 * ticker.advance(Duration.ofSeconds(30));   // returns after the task has run
 * }</pre>
 *
 * <p>{@link #advance} moves the time forward and returns once every timer using this ticker has
 * expired each timeout due at or before the new time (that is, whose tick boundary has been
 * reached: a timer never fires early, so with a 100 ms tick a timeout of 150 ms is due at 200 ms)
 * and, with the default executor, has run its task. Several timers may share one ticker.
 *
 * <p>Time may start anywhere, {@code Long.MIN_VALUE} and {@code Long.MAX_VALUE} included, and
 * wraps around like {@link System#nanoTime()}. Thread safe. Do not call {@code advance} from a
 * timer task of a timer that uses this ticker: that timer cannot move while its task waits.
 */
public final class ManualTicker implements Ticker {

    /** A worker thread of a timer that uses this ticker. Guarded by {@code lock}. */
    private static final class Worker {
        boolean sleeping;
        boolean wakeRequested;
        boolean timed;
        long deadlineNanos;
    }

    private final Object lock = new Object();
    private final Map<Thread, Worker> workers = new IdentityHashMap<>();
    private volatile long nowNanos;

    /** A ticker at time 0. */
    public ManualTicker() {
        this(0);
    }

    /** A ticker at {@code startNanos}. */
    public ManualTicker(long startNanos) {
        this.nowNanos = startNanos;
    }

    @Override
    public long nanoTime() {
        return nowNanos;
    }

    /**
     * Moves the time forward by {@code amount} and waits until every timer on this ticker has
     * caught up with it.
     *
     * @return this ticker
     * @throws IllegalArgumentException if {@code amount} is negative or does not fit in a long of
     *     nanoseconds
     */
    public ManualTicker advance(Duration amount) {
        Objects.requireNonNull(amount, "amount must not be null");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must not be negative, was " + amount);
        }
        long nanos;
        try {
            nanos = amount.toNanos();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "amount must fit in a long of nanoseconds (about 292 years), was " + amount, e);
        }
        return advanceNanos(nanos);
    }

    /**
     * Moves the time forward by {@code amount} {@code unit}s; see {@link #advance(Duration)}.
     *
     * @return this ticker
     * @throws IllegalArgumentException if {@code amount} is negative
     */
    public ManualTicker advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit must not be null");
        if (amount < 0) {
            throw new IllegalArgumentException("amount must not be negative, was " + amount + " " + unit);
        }
        return advanceNanos(unit.toNanos(amount));
    }

    private ManualTicker advanceNanos(long nanos) {
        synchronized (lock) {
            nowNanos += nanos; // wraps around past Long.MAX_VALUE, as System.nanoTime() may
            lock.notifyAll();
            awaitWorkersAsleep();
        }
        return this;
    }

    /**
     * Waits until each worker sleeps with nothing due and no wake pending. A worker that has not
     * gone back to sleep since the time moved may still have work; a finished thread has none.
     */
    private void awaitWorkersAsleep() {
        boolean interrupted = false;
        try {
            while (true) {
                boolean busy = false;
                for (Iterator<Map.Entry<Thread, Worker>> it = workers.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<Thread, Worker> entry = it.next();
                    Thread thread = entry.getKey();
                    if (thread.getState() == Thread.State.TERMINATED) {
                        it.remove();
                    } else if (thread != Thread.currentThread() && !isIdle(entry.getValue())) {
                        busy = true;
                    }
                }
                if (!busy) {
                    return;
                }
                try {
                    // Timed, so that a worker that ends without sleeping again is noticed.
                    lock.wait(10);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean isIdle(Worker worker) {
        return worker.sleeping && !worker.wakeRequested && !(worker.timed && worker.deadlineNanos - nowNanos <= 0);
    }

    @Override
    public void sleepUntil(long deadlineNanos) {
        sleep(true, deadlineNanos);
    }

    @Override
    public void sleep() {
        sleep(false, 0);
    }

    private void sleep(boolean timed, long deadlineNanos) {
        synchronized (lock) {
            Worker worker = workers.computeIfAbsent(Thread.currentThread(), t -> new Worker());
            try {
                worker.sleeping = true;
                worker.timed = timed;
                worker.deadlineNanos = deadlineNanos;
                lock.notifyAll(); // an advance may be waiting for this worker
                while (!worker.wakeRequested && !(timed && deadlineNanos - nowNanos <= 0)) {
                    lock.wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                worker.sleeping = false;
                worker.wakeRequested = false;
            }
        }
    }

    @Override
    public void wake(Thread worker) {
        synchronized (lock) {
            workers.computeIfAbsent(worker, t -> new Worker()).wakeRequested = true;
            lock.notifyAll();
        }
    }

    @Override
    public String toString() {
        return "ManualTicker(" + nowNanos + " ns)";
    }
}
