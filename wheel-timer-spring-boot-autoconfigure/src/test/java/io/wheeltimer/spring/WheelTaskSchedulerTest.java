package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.testing.ManualTicker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * {@link WheelTaskScheduler} on a timer under a {@link ManualTicker}: the four schedules and their
 * due times, the {@link ScheduledFuture} contract, errors as Spring's schedulers handle them, where
 * tasks run, the clock, and close.
 *
 * <p>Runs go from the worker to an executor, so {@code advance} returns before they ran: each
 * step waits (with Awaitility) until the executor has finished the run, the re-arming of a
 * repeated task included, before the time moves again.
 */
class WheelTaskSchedulerTest {

    private static final String WORKER = "test-wheel";
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final ManualTicker ticker = new ManualTicker();
    private final HashedWheelTimer timer =
            HashedWheelTimer.builder().name(WORKER).ticker(ticker).build();
    private final RunsExecutor executor = new RunsExecutor();
    private final WheelTaskScheduler scheduler = new WheelTaskScheduler(timer, ticker, executor);
    private final Runs runs = new Runs();
    /** The scheduler's time when the test started: the ticker's 0. */
    private final Instant start = scheduler.getClock().instant();

    @AfterEach
    void stop() {
        scheduler.close();
        timer.stop();
        executor.pool.shutdownNow();
    }

    @Nested
    class OneShot {

        @Test
        void runsOnceAtItsStartTime() throws Exception {
            ScheduledFuture<?> future = scheduler.schedule(runs, now().plusSeconds(2));

            advance(Duration.ofMillis(1900));
            assertThat(runs.times()).isEmpty();
            advance(Duration.ofMillis(100));
            awaitRuns(1);

            assertThat(runs.times()).containsExactly(at(2000));
            assertThat(future.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(future.isDone()).isTrue();
            advance(Duration.ofSeconds(10));
            assertThat(runs.times()).hasSize(1);
        }

        @Test
        void aPastStartTimeRunsOnTheNextTick() {
            scheduler.schedule(runs, now().minusSeconds(5));

            advance(timer.tickDuration());
            awaitRuns(1);

            assertThat(runs.times()).containsExactly(at(100));
        }
    }

    @Nested
    class FixedRate {

        /**
         * Late runs (the time jumps past a due time by a different amount each step) do not move
         * the later ones: after run {@code n} the next one is due at {@code start + n * period},
         * which {@code getDelay} shows, and which is when it runs.
         */
        @Test
        void runNIsDueAtStartPlusNPeriodsHoweverLateTheRunsBeforeIt() {
            Instant start = now().plusSeconds(1);
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(runs, start, SECOND);

            long[] steps = {1300, 700, 1250, 750, 1999, 1};
            long[] runTimes = {1300, 2000, 3250, 4000, 5999, 6000};
            long[] nextDue = {2000, 3000, 4000, 5000, 6000, 7000};
            long time = 0;
            for (int i = 0; i < steps.length; i++) {
                time += steps[i];
                advance(Duration.ofMillis(steps[i]));
                awaitRuns(i + 1);
                assertThat(runs.times().get(i)).as("run %d", i).isEqualTo(at(runTimes[i]));
                assertThat(future.getDelay(TimeUnit.MILLISECONDS))
                        .as("delay after run %d", i)
                        .isEqualTo(nextDue[i] - time);
            }
            assertThat(future.isDone()).isFalse();
        }

        @Test
        void withoutAStartTimeTheFirstRunIsNowAndTheNextAPeriodLater() {
            scheduler.scheduleAtFixedRate(runs, Duration.ofSeconds(2));

            assertRunsAtTheFirstTickAndAgainAfter(Duration.ofMillis(1900), 2000);
        }

        @Test
        void aRunThatOverranItsPeriodIsFollowedAtOnceNeverConcurrently() {
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostAtOnce = new AtomicInteger();
            Runnable slowFirst = () -> {
                mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                runs.run();
                if (runs.times().size() == 1) {
                    await().until(() -> release.getCount() == 0);
                }
                running.decrementAndGet();
            };
            scheduler.scheduleAtFixedRate(slowFirst, now().plusSeconds(1), SECOND);

            advance(SECOND);
            await().until(() -> runs.times().size() == 1); // run 1 started, and blocks
            advance(Duration.ofMillis(2500)); // runs 2 and 3 are due meanwhile
            release.countDown();
            awaitRuns(1);
            advance(timer.tickDuration()); // run 2, due at 2 s, re-armed late
            awaitRuns(2);
            advance(timer.tickDuration()); // run 3, due at 3 s, also late
            awaitRuns(3);

            assertThat(runs.times()).containsExactly(at(1000), at(3600), at(3700));
            assertThat(mostAtOnce).hasValue(1);
        }

        @Test
        void aStartTimeInThePastCountsAsNowWithoutCatchingUp() {
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(runs, now().minusSeconds(30), SECOND);

            advance(timer.tickDuration());
            awaitRuns(1);

            assertThat(future.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(900); // due at 1 s, not at once
            advance(Duration.ofMillis(900));
            awaitRuns(2);
            assertThat(runs.times()).containsExactly(at(100), at(1000));
        }

        @Test
        void aPeriodMustBePositive() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> scheduler.scheduleAtFixedRate(runs, Duration.ZERO))
                    .withMessage("period must be a positive duration, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> scheduler.scheduleAtFixedRate(runs, now(), Duration.ofSeconds(-1)))
                    .withMessage("period must be a positive duration, was PT-1S");
            assertThatNullPointerException()
                    .isThrownBy(() -> scheduler.scheduleAtFixedRate(runs, null))
                    .withMessage("period must not be null");
        }
    }

    @Nested
    class FixedDelay {

        /** The first run starts late and takes 200 ms: the second is due 1 s after it completed. */
        @Test
        void eachRunIsDueTheDelayAfterThePreviousOneCompleted() {
            Runnable task = () -> {
                runs.run();
                if (runs.times().size() == 1) {
                    ticker.advance(Duration.ofMillis(200)); // the run takes 200 ms
                }
            };
            ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(task, now().plusSeconds(1), SECOND);

            advance(Duration.ofMillis(1500));
            awaitRuns(1);
            assertThat(future.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(1000); // due at 2.7 s, now 1.7 s
            advance(Duration.ofMillis(900));
            assertThat(runs.times()).hasSize(1);
            advance(Duration.ofMillis(100));
            awaitRuns(2);

            assertThat(runs.times()).containsExactly(at(1500), at(2700));
        }

        @Test
        void withoutAStartTimeTheFirstRunIsNow() {
            scheduler.scheduleWithFixedDelay(runs, Duration.ofSeconds(3));

            assertRunsAtTheFirstTickAndAgainAfter(Duration.ofMillis(3000), 3100);
        }

        @Test
        void aDelayMustBePositive() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> scheduler.scheduleWithFixedDelay(runs, Duration.ofMillis(-5)))
                    .withMessage("delay must be a positive duration, was PT-0.005S");
        }
    }

    @Nested
    class WithATrigger {

        /** Asked first, then after each run, with that run's times; its null ends the schedule. */
        @Test
        void runsWhenTheTriggerSaysUntilItHasNoNextTime() throws Exception {
            List<List<Instant>> asked = new CopyOnWriteArrayList<>();
            Trigger everyTwoSecondsAfterCompletion = context -> {
                asked.add(times(context));
                if (asked.size() == 4) {
                    return null;
                }
                Instant last = context.lastCompletion();
                return last == null ? context.getClock().instant().plusSeconds(1) : last.plusSeconds(2);
            };
            ScheduledFuture<?> future = scheduler.schedule(runs, everyTwoSecondsAfterCompletion);

            advance(SECOND);
            awaitRuns(1);
            advance(Duration.ofMillis(2500)); // the second run is due at 3 s: runs 500 ms late
            awaitRuns(2);
            advance(Duration.ofMillis(2000));
            awaitRuns(3);

            assertThat(runs.times()).containsExactly(at(1000), at(3500), at(5500));
            assertThat(asked)
                    .containsExactly(
                            times(null, null, null),
                            times(at(1000), at(1000), at(1000)),
                            times(at(3000), at(3500), at(3500)),
                            times(at(5500), at(5500), at(5500)));
            assertThat(future.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(future.isDone()).isTrue();
            assertThat(future.isCancelled()).isFalse();
        }

        @Test
        void aTriggerWithoutAFirstTimeSchedulesNothing() {
            Object future = scheduler.schedule(runs, context -> null);
            assertThat(future).isNull();
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void theTriggerReadsTheSchedulersClock() {
            List<Object> clocks = new CopyOnWriteArrayList<>();
            scheduler.schedule(runs, context -> {
                clocks.add(context.getClock());
                return null;
            });
            assertThat(clocks).containsExactly(scheduler.getClock());
        }

        private List<Instant> times(TriggerContext context) {
            return times(context.lastScheduledExecution(), context.lastActualExecution(), context.lastCompletion());
        }

        private List<Instant> times(Instant scheduled, Instant actual, Instant completion) {
            List<Instant> times = new ArrayList<>();
            times.add(scheduled);
            times.add(actual);
            times.add(completion);
            return times;
        }
    }

    @Nested
    class ScheduledFutureContract {

        @Test
        void getDelayCountsDownWithTheTicker() {
            ScheduledFuture<?> future = scheduler.schedule(runs, now().plusSeconds(30));

            assertThat(future.getDelay(TimeUnit.SECONDS)).isEqualTo(30);
            advance(Duration.ofSeconds(12));
            assertThat(future.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(18_000);
        }

        @Test
        void compareToOrdersByDueTime() {
            ScheduledFuture<?> later = scheduler.schedule(runs, now().plusSeconds(20));
            ScheduledFuture<?> sooner = scheduler.scheduleAtFixedRate(runs, now().plusSeconds(10), SECOND);
            ScheduledFuture<?> alsoLater = scheduler.schedule(runs, now().plusSeconds(20));

            assertThat(sooner.compareTo(later)).isNegative();
            assertThat(later.compareTo(sooner)).isPositive();
            assertThat(later.compareTo(alsoLater)).isZero();
            assertThat(later.compareTo(later)).isZero();
        }

        @Test
        void aCancelledTaskNeverRunsAndItsGetThrowsCancellationException() {
            ScheduledFuture<?> future = scheduler.schedule(runs, now().plusSeconds(5));

            assertThat(future.cancel(false)).isTrue();
            assertThat(future.cancel(false)).as("second cancel").isFalse();
            assertThat(future.isCancelled()).isTrue();
            assertThat(future.isDone()).isTrue();
            assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
            assertThat(timer.pendingTimeouts()).isZero();
            advance(Duration.ofSeconds(10));
            assertThat(runs.times()).isEmpty();
        }

        @Test
        void getWaitsForTheOneShotsRun() throws Exception {
            ScheduledFuture<?> future = scheduler.schedule(runs, now().plusSeconds(1));
            Getter getter = new Getter(future);
            assertThatThrownBy(() -> future.get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);

            advance(SECOND);

            assertThat(getter.outcome).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("null");
            assertThat(runs.times()).hasSize(1);
            assertThat(future.isDone()).isTrue();
            assertThat(future.isCancelled()).isFalse();
            assertThat(future.cancel(true)).as("cancel after the run").isFalse();
        }

        @Test
        void aCancelWakesTheCallersInGet() {
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(runs, SECOND);
            Getter getter = new Getter(future);

            future.cancel(false);

            assertThat(getter.outcome).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("CancellationException");
        }

        @Test
        void cancelWithInterruptInterruptsTheRunningTask() throws Exception {
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
            ScheduledFuture<?> future = scheduler.schedule(
                    () -> {
                        started.countDown();
                        try {
                            new CountDownLatch(1).await(30, TimeUnit.SECONDS);
                            interrupted.complete(false);
                        } catch (InterruptedException e) {
                            interrupted.complete(true);
                        }
                    },
                    now().plusSeconds(1));
            advance(SECOND);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(future.cancel(true)).isTrue();

            assertThat(interrupted).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
            assertThat(future.isCancelled()).isTrue();
            assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
        }

        @Test
        void aRepeatedTaskCancelledDuringARunIsNotScheduledAgain() {
            List<ScheduledFuture<?>> self = new CopyOnWriteArrayList<>();
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                    () -> {
                        runs.run();
                        await().until(() -> !self.isEmpty());
                        self.get(0).cancel(false);
                    },
                    now().plusSeconds(1),
                    SECOND);
            self.add(future);

            advance(SECOND);
            awaitRuns(1);
            advance(Duration.ofSeconds(5));

            assertThat(runs.times()).hasSize(1);
            assertThat(future.isCancelled()).isTrue();
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void stoppingTheTimerCancelsThePendingTasks() {
            ScheduledFuture<?> oneShot = scheduler.schedule(runs, now().plusSeconds(5));
            ScheduledFuture<?> repeated = scheduler.scheduleWithFixedDelay(runs, now().plusSeconds(5), SECOND);

            timer.stop();

            assertThat(oneShot.isCancelled()).isTrue();
            assertThat(repeated.isCancelled()).isTrue();
            assertThatThrownBy(() -> scheduler.schedule(runs, now()))
                    .isInstanceOf(TaskRejectedException.class)
                    .hasMessageContaining("did not accept");
        }
    }

    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    class Errors {

        @Test
        void aOneShotsExceptionIsLoggedAndThrownFromGet(CapturedOutput output) {
            ScheduledFuture<?> future = scheduler.schedule(
                    () -> {
                        throw new IllegalStateException("boom");
                    },
                    now().plusSeconds(1));

            advance(SECOND);

            assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom");
            assertThat(future.isDone()).isTrue();
            assertThat(future.isCancelled()).isFalse();
            assertThat(output).contains("Unexpected error occurred in scheduled task", "boom");
        }

        @Test
        void aRepeatedTaskThatThrowsIsLoggedAndKeepsItsSchedule(CapturedOutput output) {
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                    () -> {
                        runs.run();
                        throw new IllegalStateException(
                                "failed run " + runs.times().size());
                    },
                    now().plusSeconds(1),
                    SECOND);

            for (int i = 1; i <= 3; i++) {
                advance(SECOND);
                awaitRuns(i);
            }

            assertThat(runs.times()).containsExactly(at(1000), at(2000), at(3000));
            assertThat(future.isDone()).isFalse();
            assertThat(output).contains("Unexpected error occurred in scheduled task", "failed run 1", "failed run 3");
        }

        @Test
        void anErrorHandlerThatRethrowsEndsARepeatedSchedule() {
            List<Throwable> handled = new CopyOnWriteArrayList<>();
            scheduler.setErrorHandler(error -> {
                handled.add(error);
                if (handled.size() == 2) {
                    throw new IllegalStateException("give up", error);
                }
            });
            ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(
                    () -> {
                        runs.run();
                        throw new IllegalArgumentException("bad");
                    },
                    now().plusSeconds(1),
                    SECOND);

            advance(SECOND);
            awaitRuns(1);
            advance(SECOND);
            awaitRuns(2);
            advance(Duration.ofSeconds(5));

            assertThat(runs.times()).hasSize(2);
            assertThat(handled).hasSize(2).allSatisfy(e -> assertThat(e).hasMessage("bad"));
            assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .hasMessage("give up");
        }

        @Test
        void anErrorHandlerThatSwallowsLetsAOneShotComplete() throws Exception {
            List<Throwable> handled = new CopyOnWriteArrayList<>();
            scheduler.setErrorHandler(handled::add);
            ScheduledFuture<?> future = scheduler.schedule(
                    () -> {
                        throw new IllegalStateException("handled elsewhere");
                    },
                    now().plusSeconds(1));

            advance(SECOND);

            assertThat(future.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(handled).singleElement().satisfies(e -> assertThat(e).hasMessage("handled elsewhere"));
        }

        @Test
        void aRunTheExecutorRefusesFailsTheTaskAndCountsAsTheTimersFailure() {
            Executor refusing = command -> {
                throw new TaskRejectedException("full");
            };
            WheelTaskScheduler refused = new WheelTaskScheduler(timer, ticker, refusing);
            ScheduledFuture<?> future = refused.scheduleAtFixedRate(runs, now().plusSeconds(1), SECOND);

            advance(SECOND);

            assertThat(future.isDone()).isTrue();
            assertThatThrownBy(() -> future.get(1, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TaskRejectedException.class)
                    .hasMessage("full");
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.stats().failed()).as("counted by the timer").isEqualTo(1);
        }
    }

    @Nested
    class WhereTasksRun {

        @Test
        void neverOnTheWorkerThread() {
            scheduler.schedule(runs, now().plusSeconds(1));
            scheduler.scheduleAtFixedRate(runs, now().plusSeconds(1), SECOND);
            scheduler.scheduleWithFixedDelay(runs, now().plusSeconds(1), SECOND);
            scheduler.schedule(runs, context -> context.lastCompletion() == null ? now().plusSeconds(1) : null);

            advance(SECOND);
            awaitRuns(4);

            assertThat(runs.threads())
                    .hasSize(4)
                    .allSatisfy(thread -> assertThat(thread).startsWith("task-").isNotEqualTo(WORKER));
        }

        @Test
        void withoutAnExecutorOnAnExecutorOfItsOwn() {
            try (WheelTaskScheduler own = new WheelTaskScheduler(timer, ticker)) {
                own.schedule(runs, now().plusSeconds(1));
                own.scheduleAtFixedRate(runs, now().plusSeconds(1), SECOND);

                advance(SECOND);
                await().until(() -> runs.times().size() == 2);

                assertThat(runs.threads())
                        .hasSize(2)
                        .allSatisfy(thread ->
                                assertThat(thread).startsWith("wheel-task-").isNotEqualTo(WORKER));
            }
        }
    }

    @Nested
    class TheClock {

        @Test
        void theClockMovesWithTheTickerAndOnlyWithIt() {
            Instant before = scheduler.getClock().instant();
            assertThat(before).isCloseTo(Instant.now(), within(1, ChronoUnit.MINUTES));

            ticker.advance(Duration.ofMinutes(90));

            assertThat(scheduler.getClock().instant()).isEqualTo(before.plus(Duration.ofMinutes(90)));
            assertThat(scheduler.getClock().millis())
                    .isEqualTo(before.plus(Duration.ofMinutes(90)).toEpochMilli());
        }

        @Test
        void aStartTimeIsReadOnTheTickersClock() {
            scheduler.schedule(runs, scheduler.getClock().instant().plus(Duration.ofHours(2)));

            advance(Duration.ofHours(2));
            awaitRuns(1);

            assertThat(runs.times()).containsExactly(scheduler.getClock().instant());
        }

        @Test
        void aStartTimeCenturiesAwayNeverComes() {
            ScheduledFuture<?> future = scheduler.schedule(runs, Instant.MAX);

            assertThat(future.getDelay(TimeUnit.DAYS)).isGreaterThan(365L * 70);
            advance(Duration.ofDays(365));
            assertThat(runs.times()).isEmpty();
        }

        @Test
        void withZoneKeepsTheTimeLine() {
            Clock paris = scheduler.getClock().withZone(ZoneId.of("Europe/Paris"));
            ticker.advance(Duration.ofSeconds(7));
            assertThat(paris.instant()).isEqualTo(scheduler.getClock().instant());
            assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
        }
    }

    @Nested
    class Close {

        @Test
        void closeCancelsRepeatedTasksAndRefusesNewOnes() {
            ScheduledFuture<?> repeated = scheduler.scheduleAtFixedRate(runs, now().plusSeconds(1), SECOND);
            ScheduledFuture<?> oneShot = scheduler.schedule(runs, now().plusSeconds(1));

            scheduler.close();

            assertThat(repeated.isCancelled()).isTrue();
            assertThatThrownBy(() -> scheduler.schedule(runs, now()))
                    .isInstanceOf(TaskRejectedException.class)
                    .hasMessageContaining("is closed");
            advance(SECOND);
            assertThat(oneShot.isCancelled()).as("cancelled when it came due").isTrue();
            assertThat(runs.times()).isEmpty();
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.STARTED);
        }
    }

    // --- helpers -----------------------------------------------------------------------------

    private Instant now() {
        return scheduler.getClock().instant();
    }

    /** The scheduler's time {@code millis} after the test started. */
    private Instant at(long millis) {
        return start.plusMillis(millis);
    }

    private void advance(Duration amount) {
        ticker.advance(amount);
    }

    /** Waits until the executor finished {@code n} runs, re-arming included. */
    private void awaitRuns(int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> executor.finished.get() >= n);
        assertThat(runs.times()).hasSizeGreaterThanOrEqualTo(n);
    }

    /**
     * Asserts that the first run comes at the first tick (100 ms), and the second once the time moved
     * {@code then} further, at {@code secondAt} ms.
     */
    private void assertRunsAtTheFirstTickAndAgainAfter(Duration then, long secondAt) {
        advance(timer.tickDuration());
        awaitRuns(1);
        advance(then);
        awaitRuns(2);

        assertThat(runs.times()).containsExactly(at(100), at(secondAt));
    }

    /** A thread blocked in {@code get()}: started, and waiting, when the constructor returns. */
    private static final class Getter {
        final CompletableFuture<String> outcome = new CompletableFuture<>();

        Getter(ScheduledFuture<?> future) {
            Thread thread = new Thread(() -> {
                try {
                    outcome.complete(String.valueOf(future.get()));
                } catch (Exception e) {
                    outcome.complete(e.getClass().getSimpleName());
                }
            });
            thread.start();
            await().until(() -> thread.getState() == Thread.State.WAITING);
            assertThat(outcome).isNotDone();
        }
    }

    /** Records the scheduler's time and the thread of each run. */
    private final class Runs implements Runnable {
        private final List<Instant> times = new CopyOnWriteArrayList<>();
        private final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void run() {
            times.add(scheduler.getClock().instant());
            threads.add(Thread.currentThread().getName());
        }

        List<Instant> times() {
            return List.copyOf(times);
        }

        List<String> threads() {
            return List.copyOf(threads);
        }
    }

    /** A pool whose threads are named {@code task-}, counting the runs it finished. */
    private static final class RunsExecutor implements Executor {
        final ExecutorService pool = Executors.newCachedThreadPool(new CustomizableThreadFactory("task-"));
        final AtomicInteger finished = new AtomicInteger();

        @Override
        public void execute(Runnable command) {
            pool.execute(() -> {
                try {
                    command.run();
                } finally {
                    finished.incrementAndGet();
                }
            });
        }
    }
}
