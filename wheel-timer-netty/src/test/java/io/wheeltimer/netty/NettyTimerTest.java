package io.wheeltimer.netty;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * Netty's {@link Timeout} contract through {@link NettyTimer#of}, on a wheel driven by a {@link
 * ManualTicker} with 100 ms ticks: {@code advance} returns once everything due has run.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class NettyTimerTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<HashedWheelTimer> timers = new CopyOnWriteArrayList<>();
    private HashedWheelTimer wheel;
    private Timer view;

    @BeforeEach
    void startWheel() {
        wheel = track(HashedWheelTimer.builder()
                .name("shared-wheel")
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(100))
                .build());
        wheel.start();
        view = NettyTimer.of(wheel);
    }

    @AfterEach
    void stopWheels() {
        timers.forEach(HashedWheelTimer::stop);
    }

    private HashedWheelTimer track(HashedWheelTimer timer) {
        timers.add(timer);
        return timer;
    }

    /** A Netty task that records the timeouts it was run with. */
    static final class Recording implements TimerTask {
        final List<Timeout> runs = new CopyOnWriteArrayList<>();
        private final String name;

        Recording(String name) {
            this.name = name;
        }

        @Override
        public void run(Timeout timeout) {
            runs.add(timeout);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @Nested
    class Firing {

        @Test
        void taskRunsOnceAfterTheDelayWithTheNettyTimeoutWhoseTimerIsTheView() {
            Recording task = new Recording("task");
            Timeout timeout = view.newTimeout(task, 300, MILLISECONDS);

            ticker.advance(Duration.ofMillis(299));
            assertThat(task.runs).isEmpty();
            assertThat(timeout.isExpired()).isFalse();
            ticker.advance(Duration.ofMillis(1));

            assertThat(task.runs).containsExactly(timeout);
            assertThat(timeout.timer()).isSameAs(view);
            assertThat(timeout.task()).isSameAs(task);
            assertThat(timeout.isExpired()).isTrue();
            assertThat(timeout.isCancelled()).isFalse();
            ticker.advance(Duration.ofSeconds(10));
            assertThat(task.runs).hasSize(1);
        }

        @Test
        void insideItsTaskATimeoutIsExpiredAndCannotBeCancelled() {
            AtomicBoolean expiredInside = new AtomicBoolean();
            AtomicBoolean cancelInside = new AtomicBoolean(true);
            view.newTimeout(
                    t -> {
                        expiredInside.set(t.isExpired());
                        cancelInside.set(t.cancel());
                    },
                    100,
                    MILLISECONDS);

            ticker.advance(Duration.ofMillis(100));

            assertThat(expiredInside).isTrue();
            assertThat(cancelInside).isFalse();
            assertThat(wheel.stats().cancelled()).isZero();
        }

        @Test
        void zeroAndNegativeDelaysRunOnTheNextTickAsInNetty() {
            Recording zero = new Recording("zero");
            Recording negative = new Recording("negative");
            view.newTimeout(zero, 0, MILLISECONDS);
            view.newTimeout(negative, -5, SECONDS);

            ticker.advance(Duration.ofMillis(100));

            assertThat(zero.runs).hasSize(1);
            assertThat(negative.runs).hasSize(1);
        }

        @Test
        void taskReArmsItselfThroughItsTimeoutsTimer() {
            AtomicInteger runs = new AtomicInteger();
            TimerTask every100ms = new TimerTask() {
                @Override
                public void run(Timeout timeout) {
                    if (runs.incrementAndGet() < 3) {
                        timeout.timer().newTimeout(this, 100, MILLISECONDS);
                    }
                }
            };
            view.newTimeout(every100ms, 100, MILLISECONDS);

            for (int i = 0; i < 5; i++) {
                ticker.advance(Duration.ofMillis(100));
            }

            assertThat(runs).hasValue(3);
            assertThat(wheel.pendingTimeouts()).isZero();
        }

        @Test
        void taskThatThrowsIsCountedAndLaterTasksStillRun() {
            Recording sameTick = new Recording("same tick");
            Recording later = new Recording("later");
            view.newTimeout(
                    t -> {
                        throw new IllegalStateException("task failed on purpose");
                    },
                    100,
                    MILLISECONDS);
            view.newTimeout(sameTick, 100, MILLISECONDS);
            view.newTimeout(later, 200, MILLISECONDS);

            ticker.advance(Duration.ofMillis(200));

            assertThat(sameTick.runs).hasSize(1);
            assertThat(later.runs).hasSize(1);
            assertThat(wheel.stats().failed()).isOne();
            assertThat(wheel.stats().expired()).isEqualTo(3);
            assertThat(wheel.state()).isEqualTo(HashedWheelTimer.State.STARTED);
        }

        @Test
        void theWheelDescribesAViewsTimeoutByItsNettyTask() {
            view.newTimeout(new Recording("redis command timeout"), 5, SECONDS);

            assertThat(wheel.upcoming(10)).extracting(TimeoutInfo::task).containsExactly("redis command timeout");
        }

        @Test
        void onARealClockATimeoutFiresNotBeforeItsDelay() throws Exception {
            HashedWheelTimer realTime = track(HashedWheelTimer.builder()
                    .name("real-time-wheel")
                    .tickDuration(Duration.ofMillis(10))
                    .build());
            Timer realView = NettyTimer.of(realTime);
            CountDownLatch ran = new CountDownLatch(1);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            long start = System.nanoTime();
            AtomicReference<Long> ranAfter = new AtomicReference<>();

            realView.newTimeout(
                    t -> {
                        ranAfter.set(System.nanoTime() - start);
                        ranOn.set(Thread.currentThread());
                        ran.countDown();
                    },
                    50,
                    MILLISECONDS);

            assertThat(ran.await(30, SECONDS)).isTrue();
            assertThat(ranAfter.get()).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(50));
            assertThat(ranOn.get().getName()).isEqualTo("real-time-wheel");
        }
    }

    @Nested
    class Cancelling {

        @Test
        void cancelBeforeFiringReturnsTrueOnceAndTheTaskNeverRuns() {
            Recording task = new Recording("task");
            Timeout timeout = view.newTimeout(task, 100, MILLISECONDS);

            assertThat(timeout.cancel()).isTrue();
            assertThat(timeout.cancel()).isFalse();
            ticker.advance(Duration.ofSeconds(1));

            assertThat(task.runs).isEmpty();
            assertThat(timeout.isCancelled()).isTrue();
            assertThat(timeout.isExpired()).isFalse();
            assertThat(wheel.stats().cancelled()).isOne();
            assertThat(wheel.pendingTimeouts()).isZero();
        }

        @Test
        void cancelAfterFiringReturnsFalseAndLeavesItExpired() {
            Timeout timeout = view.newTimeout(new Recording("task"), 100, MILLISECONDS);
            ticker.advance(Duration.ofMillis(100));

            assertThat(timeout.cancel()).isFalse();

            assertThat(timeout.isExpired()).isTrue();
            assertThat(timeout.isCancelled()).isFalse();
        }

        @Test
        void cancellingOneTimeoutLeavesTheOthersDueAtTheSameTick() {
            Recording cancelled = new Recording("cancelled");
            Recording kept = new Recording("kept");
            Timeout timeout = view.newTimeout(cancelled, 100, MILLISECONDS);
            view.newTimeout(kept, 100, MILLISECONDS);

            timeout.cancel();
            ticker.advance(Duration.ofMillis(100));

            assertThat(cancelled.runs).isEmpty();
            assertThat(kept.runs).hasSize(1);
        }
    }

    @Nested
    class Stopping {

        @Test
        void stopReturnsExactlyTheViewsTimeoutsThatNeverRanEachCancelled() {
            Timeout ran = view.newTimeout(new Recording("ran"), 100, MILLISECONDS);
            Timeout cancelled = view.newTimeout(new Recording("cancelled"), 1, HOURS);
            Recording firstTask = new Recording("pending 1");
            Timeout first = view.newTimeout(firstTask, 1, HOURS);
            Timeout second = view.newTimeout(new Recording("pending 2"), 2, HOURS);
            ticker.advance(Duration.ofMillis(100));
            cancelled.cancel();

            Set<Timeout> unrun = view.stop();

            assertThat(unrun).containsExactlyInAnyOrder(first, second);
            assertThat(unrun).allSatisfy(t -> assertThat(t.isCancelled()).isTrue());
            assertThat(ran.isExpired()).isTrue();
            ticker.advance(Duration.ofHours(3));
            assertThat(firstTask.runs).isEmpty();
            assertThat(view.stop()).as("a second stop").isEmpty();
        }

        @Test
        void stopLeavesTheSharedTimerAndOtherViewsRunning() {
            Timer other = NettyTimer.of(wheel);
            Recording othersTask = new Recording("other view's");
            Timeout othersTimeout = other.newTimeout(othersTask, 200, MILLISECONDS);
            AtomicInteger wheelRuns = new AtomicInteger();
            wheel.newTimeout(t -> wheelRuns.incrementAndGet(), Duration.ofMillis(200));
            Timeout mine = view.newTimeout(new Recording("mine"), 200, MILLISECONDS);

            assertThat(view.stop()).containsExactly(mine);

            assertThat(wheel.state()).isEqualTo(HashedWheelTimer.State.STARTED);
            assertThat(wheel.pendingTimeouts()).isEqualTo(2);
            Recording afterStop = new Recording("after stop");
            other.newTimeout(afterStop, 300, MILLISECONDS);
            ticker.advance(Duration.ofMillis(300));
            assertThat(othersTask.runs).containsExactly(othersTimeout);
            assertThat(afterStop.runs).hasSize(1);
            assertThat(wheelRuns).hasValue(1);
            assertThat(othersTimeout.isCancelled()).isFalse();
        }

        @Test
        void newTimeoutAfterStopIsIllegalStateWithNettysMessage() {
            io.netty.util.HashedWheelTimer netty = new io.netty.util.HashedWheelTimer();
            netty.stop();
            Throwable nettys = catchThrowable(() -> netty.newTimeout(t -> {}, 1, SECONDS));
            view.stop();

            assertThatThrownBy(() -> view.newTimeout(new Recording("late"), 1, SECONDS))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .isExactlyInstanceOf(nettys.getClass())
                    .hasMessage(nettys.getMessage());
            assertThat(wheel.pendingTimeouts()).isZero();
            assertThat(NettyTimer.of(wheel).newTimeout(new Recording("new view"), 1, SECONDS))
                    .isNotNull();
        }

        @Test
        void stopFromInsideAViewsTaskReturnsTheOthersButNotTheRunningOne() {
            AtomicReference<Set<Timeout>> stoppedInside = new AtomicReference<>();
            Timeout running = view.newTimeout(t -> stoppedInside.set(view.stop()), 100, MILLISECONDS);
            Timeout later = view.newTimeout(new Recording("later"), 1, SECONDS);

            ticker.advance(Duration.ofMillis(100));

            assertThat(stoppedInside.get()).containsExactly(later);
            assertThat(running.isExpired()).isTrue();
        }

        @Test
        void stoppingTheSharedTimerCancelsTheViewsTimeoutsAndEmptiesTheView() {
            Timeout timeout = view.newTimeout(new Recording("pending"), 1, SECONDS);

            assertThat(wheel.stop()).hasSize(1);

            assertThat(timeout.isCancelled()).isTrue();
            assertThat(view.stop()).isEmpty();
            assertThatThrownBy(() -> view.newTimeout(new Recording("late"), 1, SECONDS))
                    .isInstanceOf(IllegalStateException.class);
        }

        /**
         * Threads keep scheduling on a view while it is stopped: each call either throws or made a
         * timeout that the stop returned (none can run, they are an hour away); none is lost.
         */
        @Test
        void newTimeoutRacingStopEitherThrowsOrIsInTheReturnedSet() throws Exception {
            HashedWheelTimer realTime = track(HashedWheelTimer.builder()
                    .name("racing-wheel")
                    .tickDuration(Duration.ofMillis(10))
                    .build());
            for (int round = 0; round < 20; round++) {
                Timer racing = NettyTimer.of(realTime);
                ConcurrentLinkedQueue<Timeout> made = new ConcurrentLinkedQueue<>();
                AtomicInteger refused = new AtomicInteger();
                CountDownLatch going = new CountDownLatch(2);
                List<Thread> producers = new ArrayList<>();
                for (int p = 0; p < 2; p++) {
                    Thread producer = new Thread(() -> {
                        going.countDown();
                        while (true) {
                            try {
                                made.add(racing.newTimeout(t -> {}, 1, HOURS));
                            } catch (IllegalStateException e) {
                                refused.incrementAndGet();
                                return;
                            }
                        }
                    });
                    producer.start();
                    producers.add(producer);
                }
                going.await();
                while (made.size() < 100) {
                    Thread.onSpinWait(); // stop while both are scheduling, not after a polling delay
                }

                Set<Timeout> unrun = racing.stop();
                for (Thread producer : producers) {
                    producer.join(30_000);
                }

                assertThat(refused).hasValue(2);
                // As sets: thousands of timeouts, too many for an element-by-element comparison.
                assertThat(unrun).hasSameSizeAs(made);
                assertThat(new HashSet<>(made)).isEqualTo(new HashSet<>(unrun));
                await().atMost(Duration.ofSeconds(30)).until(() -> realTime.pendingTimeouts() == 0);
            }
        }
    }

    @Test
    void nullArgumentsAreNullPointerNamingThemAsNettysAre() {
        io.netty.util.HashedWheelTimer netty = new io.netty.util.HashedWheelTimer();
        try {
            Throwable nullTask = catchThrowable(() -> netty.newTimeout(null, 1, SECONDS));
            Throwable nullUnit = catchThrowable(() -> netty.newTimeout(t -> {}, 1, null));

            assertThatThrownBy(() -> view.newTimeout(null, 1, SECONDS))
                    .isExactlyInstanceOf(nullTask.getClass())
                    .hasMessageContaining(nullTask.getMessage());
            assertThatThrownBy(() -> view.newTimeout(t -> {}, 1, null))
                    .isExactlyInstanceOf(nullUnit.getClass())
                    .hasMessageContaining(nullUnit.getMessage());
            assertThatThrownBy(() -> NettyTimer.of(null))
                    .isExactlyInstanceOf(NullPointerException.class)
                    .hasMessageContaining("timer");
            assertThat(wheel.stats().scheduled()).isZero();
        } finally {
            netty.stop();
        }
    }

    @Test
    void eachCallMakesAnIndependentView() {
        Timer another = NettyTimer.of(wheel);

        assertThat(another).isNotSameAs(view);
        Timeout mine = view.newTimeout(new Recording("mine"), 1, SECONDS);
        Timeout theirs = another.newTimeout(new Recording("theirs"), 1, SECONDS);
        assertThat(mine.timer()).isSameAs(view);
        assertThat(theirs.timer()).isSameAs(another);
        assertThat(another.stop()).containsExactly(theirs);
        assertThat(mine.isCancelled()).isFalse();
    }
}
