package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;

/**
 * A {@link TimerTask} that holds the thread running it (the worker, without a task executor) until
 * the test releases it: for what the timer does while its worker is busy in a task.
 */
final class HoldingTask implements TimerTask {

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void run(Timeout timeout) throws InterruptedException {
        entered.countDown();
        release.await();
    }

    /** Waits (10 s at most) until the task holds its thread, and fails the test if it never does. */
    void awaitHolding() throws InterruptedException {
        assertThat(entered.await(10, SECONDS)).as("the holding task started").isTrue();
    }

    /** Lets the task return. */
    void release() {
        release.countDown();
    }

    @Override
    public String toString() {
        return "HoldingTask";
    }
}
