package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the tests of the Netty-compatible timer's behaviour share: they are one class per behaviour,
 * one test per rule, failure paths included. Time is a {@link ManualTicker} (a fresh {@link #ticker}
 * per test) wherever time is the subject; where the layout could matter a test runs for both
 * ({@code hierarchical} true and false). Every test has 60 s at most (the annotation is inherited).
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
abstract class TimerTestFixture {

    static final Duration TICK = Duration.ofMillis(100);
    static final long TICK_NANOS = TICK.toNanos();
    static final String NETTY_MESSAGE =
            "Number of pending timeouts (2) is greater than or equal to maximum allowed pending timeouts (1)";

    @RegisterExtension
    final TestTimers timers = TestTimers.stopMayFail();

    /** Starts at 0 and moves only when told. */
    final ManualTicker ticker = new ManualTicker();

    final ExecutorService pool = Executors.newCachedThreadPool(TestTimers.daemonThreads("test-helper"));

    @AfterEach
    void stopHelpers() {
        pool.shutdownNow();
    }

    /** A started timer on {@code ticker} with 100 ms ticks: its boundaries are at k * 100 ms from now. */
    HashedWheelTimer manualTimer(ManualTicker ticker, boolean hierarchical) {
        return manualTimer(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).hierarchical(hierarchical));
    }

    HashedWheelTimer manualTimer(HashedWheelTimer.Builder builder) {
        HashedWheelTimer timer = timers.track(builder.name("manual-timer").build());
        timer.start();
        return timer;
    }

    /**
     * Has {@code holding}, due at the first tick (100 ms), hold {@code timer}'s worker: moves {@link #ticker}
     * {@code by} on a thread of {@link #pool} and returns once the task holds the worker. That advance
     * returns once the task is released.
     */
    Future<?> holdTheWorker(HashedWheelTimer timer, HoldingTask holding, Duration by) throws InterruptedException {
        timer.newTimeout(holding, TICK);
        Future<?> advance = pool.submit(() -> ticker.advance(by));
        holding.awaitHolding();
        return advance;
    }

    static TimerTask noop() {
        return timeout -> {};
    }
}
