package io.wheeltimer;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link TimerTask} that records how often, when, and on which thread it ran or was cancelled. */
class RecordingTask implements TimerTask {

    private final String name;
    private final Ticker ticker;
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger cancels = new AtomicInteger();
    final CountDownLatch ran = new CountDownLatch(1);
    volatile Thread ranOn;
    volatile Thread cancelledOn;
    volatile long ranAtNanos = Long.MIN_VALUE;
    volatile boolean cancelledFlagSeenInCallback;

    RecordingTask(String name) {
        this(name, null);
    }

    /** {@code ticker}: whose time {@link #ranAtNanos} records; null for none. */
    RecordingTask(String name, Ticker ticker) {
        this.name = name;
        this.ticker = ticker;
    }

    @Override
    public void run(Timeout timeout) throws Exception {
        ranOn = Thread.currentThread();
        if (ticker != null) {
            ranAtNanos = ticker.nanoTime();
        }
        runs.incrementAndGet();
        ran.countDown();
    }

    @Override
    public void cancelled(Timeout timeout) {
        cancelledOn = Thread.currentThread();
        cancelledFlagSeenInCallback = timeout.isCancelled();
        cancels.incrementAndGet();
    }

    int runs() {
        return runs.get();
    }

    int cancels() {
        return cancels.get();
    }

    @Override
    public String toString() {
        return name;
    }
}
