package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link HashedWheelTimer#stopGracefully(Duration)}: new timeouts are refused from the call on, those due
 * within the grace period (and the rest of its last tick) still fire on time, then the timer stops
 * and returns the rest like {@link HashedWheelTimer#stop()}.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS)
class StopGracefullyTest {

    @RegisterExtension
    final TestTimers timers = new TestTimers();

    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final AtomicReference<Thread> stoppingThread = new AtomicReference<>();
    private final ExecutorService stopper = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "stopper");
        stoppingThread.set(thread);
        return thread;
    });

    @AfterEach
    void stopAll() {
        stopper.shutdownNow();
    }

    private HashedWheelTimer timer(Ticker ticker, Duration tick) {
        HashedWheelTimer timer =
                HashedWheelTimer.builder().ticker(ticker).tickDuration(tick).build();
        timers.track(timer);
        timer.start();
        return timer;
    }

    private Timeout schedule(HashedWheelTimer timer, String name, long millis) {
        return timer.newTimeout(t -> ran.add(name), Duration.ofMillis(millis));
    }

    /** Calls {@code stopGracefully(grace)} on another thread and returns once that thread waits in it. */
    private Future<Set<Timeout>> stopInTheBackground(HashedWheelTimer timer, Duration grace) {
        Future<Set<Timeout>> stopped = stopper.submit(() -> timer.stopGracefully(grace));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> stopped.isDone()
                        || stoppingThread.get() != null && stoppingThread.get().getState() == Thread.State.WAITING);
        return stopped;
    }

    @Nested
    class WithAManualTicker {

        private final ManualTicker ticker = new ManualTicker();
        private final HashedWheelTimer timer = timer(ticker, Duration.ofMillis(100));

        @Test
        void inThePeriodTheTimerIsStartedButStartRefusesAsStoppingAndAfterItAsStopped() throws Exception {
            schedule(timer, "keeps-the-period-open", 500);
            Future<Set<Timeout>> stopped = stopInTheBackground(timer, Duration.ofSeconds(1));

            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.STARTED);
            assertThat(timer.stats().state()).isEqualTo(HashedWheelTimer.State.STARTED);
            assertThatThrownBy(timer::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot accept new timeouts: the timer is stopping");
            ticker.advance(Duration.ofMillis(500));

            assertThat(stopped.get(30, SECONDS)).isEmpty();
            assertThat(ran).containsExactly("keeps-the-period-open");
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
            assertThatThrownBy(timer::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot be started once stopped");
        }

        @Test
        void timeoutsDueWithinThePeriodAndItsLastTickFireOnTimeTheRestAreReturnedCancelled() throws Exception {
            ticker.advance(Duration.ofMillis(50)); // the period of 1 s ends at 1.05 s, its last tick at 1.1 s
            schedule(timer, "at-0.3", 250);
            schedule(timer, "at-1.0", 950);
            schedule(timer, "in-the-last-tick", 1030); // due 1.08 s, after the end but in its tick
            Timeout next = schedule(timer, "next-tick", 1100); // due 1.15 s
            Timeout later = schedule(timer, "an-hour-later", 3_600_000);

            Future<Set<Timeout>> stopped = stopInTheBackground(timer, Duration.ofSeconds(1));

            assertThat(stopped).isNotDone();
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.STARTED);
            assertThatThrownBy(() -> timer.newTimeout(t -> {}, Duration.ofMillis(10)))
                    .as("new timeouts are refused from the call on")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stopping");
            ticker.advance(Duration.ofMillis(250)); // 0.3 s
            assertThat(ran).containsExactly("at-0.3");
            ticker.advance(Duration.ofMillis(700)); // 1.0 s
            assertThat(ran).containsExactly("at-0.3", "at-1.0");
            assertThat(stopped).as("the last tick has not ended").isNotDone();
            ticker.advance(Duration.ofMillis(100)); // 1.1 s: the boundary that ends the last tick

            assertThat(stopped.get(30, SECONDS)).containsExactlyInAnyOrder(next, later);
            assertThat(ran).containsExactly("at-0.3", "at-1.0", "in-the-last-tick");
            assertThat(next.isCancelled()).isTrue();
            assertThat(later.isCancelled()).isTrue();
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
            assertThat(timer.stats().expired()).isEqualTo(3);
            assertThat(timer.stats().cancelled()).isEqualTo(2);
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void withNothingDueWithinThePeriodItStopsWithoutWaitingForTheTime() throws Exception {
            Timeout later = schedule(timer, "in-two-hours", 7_200_000);

            Future<Set<Timeout>> stopped = stopper.submit(() -> timer.stopGracefully(Duration.ofHours(1)));

            assertThat(stopped.get(30, SECONDS)).containsExactly(later);
            assertThat(ticker.nanoTime()).as("the ticker never moved").isZero();
            assertThat(ran).isEmpty();
        }

        @Test
        void aTimeoutCancelledDuringThePeriodDoesNotFireNorKeepTheTimerWaiting() throws Exception {
            Timeout cancelled = schedule(timer, "cancelled", 500);
            Future<Set<Timeout>> stopped = stopInTheBackground(timer, Duration.ofSeconds(1));

            assertThat(cancelled.cancel()).isTrue();
            ticker.advance(Duration.ofMillis(100)); // the worker looks at the cancelled within a tick

            assertThat(stopped.get(30, SECONDS)).isEmpty();
            assertThat(ticker.nanoTime()).as("long before the period ends").isEqualTo(100_000_000);
            assertThat(ran).isEmpty();
        }

        @Test
        void stopFromAnotherThreadEndsThePeriodAtOnce() throws Exception {
            Timeout due = schedule(timer, "due-within-the-period", 500);
            Future<Set<Timeout>> stopped = stopInTheBackground(timer, Duration.ofSeconds(1));

            assertThat(timer.stop()).containsExactly(due);

            assertThat(stopped.get(30, SECONDS)).as("as a second stop()").isEmpty();
            assertThat(ran).isEmpty();
        }

        @Test
        void anInterruptEndsThePeriodAtOnceAndIsKept() throws Exception {
            Timeout due = schedule(timer, "due-within-the-period", 500);
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Future<Set<Timeout>> stopped = stopper.submit(() -> {
                try {
                    return timer.stopGracefully(Duration.ofSeconds(1));
                } finally {
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            await().atMost(Duration.ofSeconds(30))
                    .until(() ->
                            stoppingThread.get() != null && stoppingThread.get().getState() == Thread.State.WAITING);

            stoppingThread.get().interrupt();

            assertThat(stopped.get(30, SECONDS)).containsExactly(due);
            assertThat(stillInterrupted).hasValue(true);
            assertThat(ran).isEmpty();
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        }

        @Test
        void aZeroGraceIsStop() {
            Timeout due = schedule(timer, "next-tick", 1);

            assertThat(timer.stopGracefully(Duration.ZERO)).containsExactly(due);
            assertThat(ran).isEmpty();
        }

        @Test
        void aSecondCallReturnsNothing() {
            Timeout later = schedule(timer, "later", 7_200_000);

            assertThat(timer.stopGracefully(Duration.ofSeconds(1))).containsExactly(later);
            assertThat(timer.stopGracefully(Duration.ofSeconds(1))).isEmpty();
        }

        @Test
        void fromATaskOnTheWorkerThreadItIsRefused() {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            timer.newTimeout(
                    t -> {
                        try {
                            timer.stopGracefully(Duration.ofSeconds(1));
                            thrown.complete(null);
                        } catch (Throwable e) {
                            thrown.complete(e);
                        }
                    },
                    Duration.ofMillis(100));

            ticker.advance(Duration.ofMillis(100));

            assertThat(thrown.join())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stopGracefully(Duration)")
                    .hasMessageContaining("worker thread");
        }
    }

    @Test
    void aTimerNeverStartedStopsAtOnce() {
        HashedWheelTimer timer = HashedWheelTimer.builder().build();
        timers.track(timer);

        assertThat(timer.stopGracefully(Duration.ofHours(1))).isEmpty();
        assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
    }

    @Test
    void aNullOrNegativeGraceIsRefusedNamingTheValue() {
        HashedWheelTimer timer = HashedWheelTimer.builder().build();
        timers.track(timer);

        assertThatThrownBy(() -> timer.stopGracefully(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("grace must not be null");
        assertThatThrownBy(() -> timer.stopGracefully(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grace")
                .hasMessageContaining("PT-1S")
                .hasMessageContaining(">= 0");
        assertThat(timer.state()).as("a refused call stops nothing").isEqualTo(HashedWheelTimer.State.INIT);
    }

    @Test
    void inRealTimeItWaitsForTheTimeoutsDueWithinThePeriodOnly() {
        HashedWheelTimer timer = timer(Ticker.system(), Duration.ofMillis(10));
        schedule(timer, "soon", 200);
        Timeout later = schedule(timer, "an-hour-later", 3_600_000);
        long start = System.nanoTime();

        Set<Timeout> neverRan = timer.stopGracefully(Duration.ofSeconds(20));

        assertThat(ran).containsExactly("soon");
        assertThat(neverRan).containsExactly(later);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("it stops once nothing more is due within the period, not at its end")
                .isLessThan(Duration.ofSeconds(15));
    }
}
