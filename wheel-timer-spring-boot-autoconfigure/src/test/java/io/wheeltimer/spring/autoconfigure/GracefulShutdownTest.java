package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * On context close the timer stops after the await period; what never ran is logged at WARN. Real
 * time, but for the last-tick rule, which a {@link ManualTicker} pins.
 */
@ExtendWith(OutputCaptureExtension.class)
class GracefulShutdownTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class))
            .withPropertyValues("wheel-timer.tick-duration=10ms");

    @Test
    void timeoutsDueWithinTheAwaitPeriodStillRunTheRestAreCancelledAndCounted(CapturedOutput output) {
        AtomicBoolean soonRan = new AtomicBoolean();
        AtomicBoolean laterRan = new AtomicBoolean();
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=5s")
                .run(context -> {
                    timer.set(context.getBean(HashedWheelTimer.class));
                    timer.get().newTimeout(t -> soonRan.set(true), Duration.ofMillis(300));
                    timer.get().newTimeout(t -> laterRan.set(true), Duration.ofHours(1));
                });
        // The context is closed now.
        assertThat(soonRan).as("due within the await period").isTrue();
        assertThat(laterRan).isFalse();
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(timer.get().stats().cancelled()).isEqualTo(1);
        assertThat(output).contains("WARN").contains("1 pending timeouts never ran");
    }

    @Test
    void withoutAnAwaitPeriodTheTimerStopsAtOnce(CapturedOutput output) {
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        long closedIn = System.nanoTime();
        runner.run(context -> {
            timer.set(context.getBean(HashedWheelTimer.class));
            timer.get().newTimeout(t -> ran.set(true), Duration.ofSeconds(20));
            timer.get().newTimeout(t -> ran.set(true), Duration.ofSeconds(30));
        });
        assertThat(Duration.ofNanos(System.nanoTime() - closedIn)).isLessThan(Duration.ofSeconds(15));
        assertThat(ran).isFalse();
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(output).contains("2 pending timeouts never ran");
    }

    @Test
    void nothingPendingStopsQuietly(CapturedOutput output) {
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=10s")
                .run(context -> timer.set(context.getBean(HashedWheelTimer.class)));
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(output).doesNotContain("never ran");
    }

    /** A task that holds the worker delays the stop; it never prevents it. */
    @Nested
    class ATaskHoldingTheWorker {

        @Test
        void delaysTheStopAndTheCallsDueWithinThePeriodStillRunBeforeIt(CapturedOutput output) throws Exception {
            AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
            AtomicReference<Boolean> laterRanInActiveContext = new AtomicReference<>();
            CountDownLatch slowStarted = new CountDownLatch(1);
            runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=5s")
                    .withBean(Slow.class)
                    .run(context -> {
                        timer.set(context.getBean(HashedWheelTimer.class));
                        Slow slow = context.getBean(Slow.class);
                        Slow.started = slowStarted;
                        Slow.onRun = () -> laterRanInActiveContext.set(context.isActive());
                        slow.holdTheWorker(); // due in 100 ms, then holds the worker for 3 s
                        slow.later(); // due 1 s later, while the worker is held
                        assertThat(slowStarted.await(30, TimeUnit.SECONDS)).isTrue();
                    });
            // The context is closed now: the stop waited for the task, then for the later call.
            assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
            assertThat(laterRanInActiveContext)
                    .as("the later call, due within the period, ran before the stop")
                    .hasValue(true);
            assertThat(output)
                    .doesNotContain("Invocation of destroy method failed")
                    .doesNotContain("never ran");
        }
    }

    /** Timeouts due in the last tick of the await period run too, even when that tick ends after it. */
    @Nested
    class TheLastTickOfTheAwaitPeriod {

        /**
         * The reproduction, in real time: the close comes just before a tick boundary, so timeouts
         * due at the end of the period fire at the first boundary after it.
         */
        @Test
        void timeoutsDueJustBeforeThePeriodEndsRunEvenWhenTheirTickEndsAfterIt(CapturedOutput output) {
            List<String> ran = new CopyOnWriteArrayList<>();
            AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
            runner.withPropertyValues(
                            "wheel-timer.tick-duration=100ms", "wheel-timer.shutdown.await-termination-period=1s")
                    .run(context -> {
                        timer.set(context.getBean(HashedWheelTimer.class));
                        CountDownLatch scheduled = new CountDownLatch(1);
                        // Scheduled from a task, that is at a tick boundary b: their deadlines are b + delay.
                        timer.get()
                                .newTimeout(
                                        t -> {
                                            for (int millis : new int[] {1000, 1020, 1040, 1050}) {
                                                timer.get()
                                                        .newTimeout(
                                                                x -> ran.add("in-" + millis),
                                                                millis,
                                                                TimeUnit.MILLISECONDS);
                                            }
                                            timer.get().newTimeout(x -> ran.add("after"), 3, TimeUnit.SECONDS);
                                            scheduled.countDown();
                                        },
                                        1,
                                        TimeUnit.MILLISECONDS);
                        assertThat(scheduled.await(30, TimeUnit.SECONDS)).isTrue();
                        Thread.sleep(70); // close at about b + 0.07: the period ends at about b + 1.07
                    });
            assertThat(ran).containsExactlyInAnyOrder("in-1000", "in-1020", "in-1040", "in-1050");
            assertThat(timer.get().stats().cancelled()).isEqualTo(1);
            assertThat(output)
                    .contains(
                            "1 pending timeouts never ran (none was due within the await-termination-period of PT1S)");
        }

        @Test
        void withAManualTickerEveryTimeoutDueWithinThePeriodRunsAndTheRestAreCancelled(CapturedOutput output)
                throws Exception {
            List<String> ran = new CopyOnWriteArrayList<>();
            AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
            runner.withPropertyValues(
                            "wheel-timer.tick-duration=100ms", "wheel-timer.shutdown.await-termination-period=1s")
                    .withBean(ManualTicker.class, ManualTicker::new)
                    .run(context -> {
                        ManualTicker ticker = context.getBean(ManualTicker.class);
                        timer.set(context.getBean(HashedWheelTimer.class));
                        timer.get().start();
                        ticker.advance(Duration.ofMillis(50)); // close at 0.05: the period ends at 1.05
                        for (int millis :
                                new int[] {300, 970, 990, 1000}) { // due 0.35 .. 1.05, the last tick ends at 1.1
                            timer.get().newTimeout(x -> ran.add("in-" + millis), millis, TimeUnit.MILLISECONDS);
                        }
                        timer.get().newTimeout(x -> ran.add("after-1010"), 1010, TimeUnit.MILLISECONDS);
                        timer.get().newTimeout(x -> ran.add("after-2000"), 2000, TimeUnit.MILLISECONDS);
                        AtomicReference<Thread> closingThread = new AtomicReference<>();
                        ExecutorService closer = Executors.newSingleThreadExecutor(runnable -> {
                            Thread thread = new Thread(runnable, "closer");
                            closingThread.set(thread);
                            return thread;
                        });
                        try {
                            Future<?> closed = closer.submit(context::close);
                            // Time moves only once the close reads it: the period is then 0.05 .. 1.05.
                            await().atMost(Duration.ofSeconds(30))
                                    .until(() -> closingThread.get() != null
                                            && closingThread.get().getState() == Thread.State.WAITING);
                            // Time moves to 1.09 only: "after-1010" (due 1.06) is not due before 1.1.
                            for (int step = 0; step < 104 && !closed.isDone(); step++) {
                                ticker.advance(Duration.ofMillis(10));
                            }
                            Thread.sleep(200);
                            assertThat(closed)
                                    .as("waits for the timeouts of the last tick")
                                    .isNotDone();
                            ticker.advance(Duration.ofMillis(10)); // 1.1: the last tick of the period
                            closed.get(30, TimeUnit.SECONDS);
                        } finally {
                            closer.shutdownNow();
                        }
                    });
            assertThat(ran).containsExactlyInAnyOrder("in-300", "in-970", "in-990", "in-1000", "after-1010");
            assertThat(timer.get().stats().cancelled()).isEqualTo(1);
            assertThat(output).contains("1 pending timeouts never ran (none was due within");
        }
    }

    /**
     * Spring's executors stop taking tasks on the close event; the timers are stopped ahead of
     * them, so a call due within the await period still runs on {@code applicationTaskExecutor}.
     */
    @Test
    void aCallDueWithinTheAwaitPeriodStillRunsOnTheApplicationTaskExecutor(CapturedOutput output) {
        List<String> threads = new CopyOnWriteArrayList<>();
        runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
                .withPropertyValues(
                        "wheel-timer.shutdown.await-termination-period=5s",
                        "spring.task.execution.thread-name-prefix=app-task-")
                .withBean(Soon.class)
                .run(context -> {
                    Soon.threads = threads;
                    context.getBean(Soon.class).soon();
                });
        // It started before the stop; applicationTaskExecutor does not wait for it to end (Boot's
        // spring.task.execution.shutdown.await-termination is off), so it may end after the close.
        await().atMost(Duration.ofSeconds(10)).until(() -> !threads.isEmpty());
        assertThat(threads)
                .singleElement()
                .satisfies(thread -> assertThat(thread).startsWith("app-task-"));
        assertThat(output).doesNotContain("never ran").doesNotContain("refused");
    }

    /** A fired call waiting for a thread of its executor is due within the period too: the stop waits for it. */
    @Test
    void aCallThatFiredButWaitsForAThreadStillRunsBeforeTheStop(CapturedOutput output) {
        List<String> threads = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=5s")
                .withBean(
                        "slowToStart",
                        Executor.class,
                        () -> command -> CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS)
                                .execute(command))
                .withBean(SlowToStart.class)
                .run(context -> {
                    SlowToStart.threads = threads;
                    context.getBean(SlowToStart.class).soon();
                });
        // It started before the stop; nothing waits for it to end, so it may end after the close.
        await().atMost(Duration.ofSeconds(10)).until(() -> !threads.isEmpty());
        assertThat(threads).hasSize(1);
        assertThat(output).doesNotContain("did not run");
    }

    static class SlowToStart {
        static volatile List<String> threads;

        @WheelTimeout(delay = "50ms", executor = "slowToStart")
        public void soon() {
            threads.add(Thread.currentThread().getName());
        }
    }

    static class Soon {
        static volatile List<String> threads;

        @WheelTimeout(delay = "300ms")
        public void soon() {
            threads.add(Thread.currentThread().getName());
        }
    }

    /** Holds the worker with one deferred call while another is due. */
    static class Slow {
        // Static: the test holds the proxy, whose fields are not the target's.
        static volatile CountDownLatch started;
        static volatile Runnable onRun = () -> {};

        @WheelTimeout(delay = "100ms")
        public void holdTheWorker() throws InterruptedException {
            started.countDown();
            Thread.sleep(3000);
        }

        @WheelTimeout(delay = "1100ms")
        public void later() {
            onRun.run();
        }
    }
}
