package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.THIRTY_SECONDS;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.WORKER;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.timer;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.wheelTimeoutRunner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Call;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Reminders;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link WheelTimeout @WheelTimeout} as its javadoc describes it, through the auto-configuration,
 * with a {@link ManualTicker} driving time (100 ms ticks): a call schedules the method instead of
 * running it, what the timer refuses, calls from several threads, and when the post-processor applies.
 * Elsewhere: what a call returns and how failures reach the caller in {@link WheelTimeoutResultTest};
 * the forms of the delay in {@link WheelTimeoutDelayTest}; the timer a call runs on in
 * {@link WheelTimeoutTimerChoiceTest}; how a call describes itself in
 * {@link WheelTimeoutTaskDescriptionTest}; the executor a call runs on in
 * {@link WheelTimeoutExecutorTest}; mistakes that stop startup in
 * {@link WheelTimeoutStartupValidationTest} and, one case per kind with the printed report,
 * {@link AnnotationFailureReportTest}; parent and child contexts in
 * {@link WheelTimeoutContextHierarchyTest}.
 */
class WheelTimeoutTest {

    private final ApplicationContextRunner runner = wheelTimeoutRunner();

    /**
     * A call through the proxy does not run the method: it schedules it to run once, after the
     * delay, on the timer's worker.
     */
    @Nested
    class Scheduling {

        @Test
        void callOfAVoidMethodDoesNotRunItButSchedulesIt() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).remind("ann", 3);

                assertThat(calls(context).all()).isEmpty();
                assertThat(timer(context).stats().scheduled()).isEqualTo(1);
                assertThat(timer(context).pendingTimeouts()).isEqualTo(1);
            });
        }

        @Test
        void methodRunsAfterTheDelayWithTheCallsArgumentsOnTheWorkerThread() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).remind("ann", 3);

                ticker(context).advance(THIRTY_SECONDS.minusMillis(1));
                assertThat(calls(context).all()).isEmpty();
                ticker(context).advance(Duration.ofMillis(1));

                assertThat(calls(context).all()).containsExactly(new Call("remind", List.of("ann", 3), WORKER));
                assertThat(WORKER).isNotEqualTo(Thread.currentThread().getName());
                assertThat(timer(context).stats().expired()).isEqualTo(1);
            });
        }

        @Test
        void eachCallRunsOnceWithItsOwnArguments() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.remind("ann", 1);
                ticker(context).advance(Duration.ofSeconds(10));
                reminders.remind("bob", 2);

                ticker(context).advance(Duration.ofSeconds(20));
                assertThat(calls(context).all()).extracting(Call::args).containsExactly(List.of("ann", 1));
                ticker(context).advance(Duration.ofSeconds(10));
                assertThat(calls(context).all())
                        .extracting(Call::args)
                        .containsExactly(List.of("ann", 1), List.of("bob", 2));
            });
        }

        /** As with {@code @Async}: only calls through the proxy are deferred. */
        @Test
        void aCallFromTheBeanItselfRunsAtOnceOnTheCallersThread() {
            runner.withBean(SelfCalling.class).run(context -> {
                context.getBean(SelfCalling.class).outer("x");

                assertThat(calls(context).all())
                        .containsExactly(new Call(
                                "inner", List.of("x"), Thread.currentThread().getName()));
                assertThat(context.getBean("wheelTimer", HashedWheelTimer.class)
                                .stats()
                                .scheduled())
                        .isZero();
            });
        }
    }

    /**
     * Calls the timer refuses: after it stopped or the context closed, and beyond its maximum of
     * pending timeouts.
     */
    @Nested
    class RefusedCalls {

        @Test
        void callAfterTheTimerStoppedThrowsIllegalStateExceptionNamingTheMethod() {
            runner.withBean(Reminders.class).run(context -> {
                timer(context).stop();

                assertThatIllegalStateException()
                        .isThrownBy(() -> context.getBean(Reminders.class).remind("ann", 1))
                        .withMessageContaining("stopped")
                        .withMessageContaining(Reminders.class.getName() + ".remind(String, int)");
                assertThat(calls(context).all()).isEmpty();
            });
        }

        @Test
        void futureCallAfterTheTimerStoppedThrowsIllegalStateException() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.greet("before"); // the timer has started and resolved
                timer(context).stop();

                assertThatIllegalStateException()
                        .isThrownBy(() -> reminders.greet("after"))
                        .withMessageContaining("stopped")
                        .withMessageContaining(Reminders.class.getName() + ".greet(String)");
            });
        }

        @Test
        void callAfterTheContextClosedThrowsIllegalStateException() {
            Reminders[] bean = new Reminders[1];
            runner.withBean(Reminders.class).run(context -> {
                bean[0] = context.getBean(Reminders.class);
                bean[0].remind("warm-up", 0);
            });
            assertThatIllegalStateException()
                    .isThrownBy(() -> bean[0].remind("late", 1))
                    .withMessageContaining("stopped");
        }

        @Test
        void callBeyondMaxPendingTimeoutsIsRejected() {
            runner.withPropertyValues("wheel-timer.max-pending-timeouts=1")
                    .withBean(Reminders.class)
                    .run(context -> {
                        Reminders reminders = context.getBean(Reminders.class);
                        reminders.remind("ann", 1);

                        assertThatExceptionOfType(RejectedExecutionException.class)
                                .isThrownBy(() -> reminders.remind("bob", 2))
                                .withMessage(
                                        "Number of pending timeouts (2) is greater than or equal to maximum allowed"
                                                + " pending timeouts (1)");
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).all()).extracting(Call::args).containsExactly(List.of("ann", 1));
                        assertThat(timer(context).stats().rejected()).isEqualTo(1);
                    });
        }
    }

    /** Calls from several threads at once. */
    @Nested
    class Concurrency {

        @Test
        void callsFromSeveralThreadsAreAllScheduled() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                int threads = 8;
                int callsPerThread = 50;
                CountDownLatch start = new CountDownLatch(1);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        String caller = "caller-" + t;
                        done.add(pool.submit(() -> {
                            start.await();
                            for (int i = 0; i < callsPerThread; i++) {
                                reminders.remind(caller, i);
                            }
                            return null;
                        }));
                    }
                    start.countDown();
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdownNow();
                }

                assertThat(timer(context).stats().scheduled()).isEqualTo(threads * callsPerThread);
                assertThat(calls(context).all()).isEmpty();
                ticker(context).advance(THIRTY_SECONDS);

                Set<List<Object>> expected = new HashSet<>();
                for (int t = 0; t < threads; t++) {
                    for (int i = 0; i < callsPerThread; i++) {
                        expected.add(List.of("caller-" + t, i));
                    }
                }
                List<Call> ran = calls(context).all();
                assertThat(ran).hasSize(threads * callsPerThread);
                assertThat(ran).extracting(Call::args).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(ran).extracting(Call::thread).containsOnly(WORKER);
                assertThat(timer(context).stats().pending()).isZero();
            });
        }
    }

    /**
     * Whether the starter's post-processor applies: not with the starter turned off, and not beside
     * one the application declares.
     */
    @Nested
    class ThePostProcessor {

        @Test
        void disabledStarterRunsAnnotatedMethodsAtOnceOnTheCallersThread() {
            runner.withPropertyValues("wheel-timer.enabled=false")
                    .withBean(Reminders.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context).doesNotHaveBean(WheelTimeoutBeanPostProcessor.class);
                        assertThat(context).doesNotHaveBean(Timer.class);
                        Reminders reminders = context.getBean(Reminders.class);
                        assertThat(AopUtils.isAopProxy(reminders)).isFalse();

                        reminders.remind("ann", 1);

                        assertThat(calls(context).all())
                                .containsExactly(new Call(
                                        "remind",
                                        List.of("ann", 1),
                                        Thread.currentThread().getName()));
                    });
        }

        @Test
        void enabledStarterRegistersTheBeanPostProcessor() {
            runner.run(context -> assertThat(context).hasSingleBean(WheelTimeoutBeanPostProcessor.class));
        }

        @Test
        void userBeanPostProcessorReplacesTheAutoConfiguredOne() {
            runner.withUserConfiguration(OwnPostProcessor.class)
                    .withBean(Reminders.class)
                    .run(context -> {
                        assertThat(context)
                                .getBeans(WheelTimeoutBeanPostProcessor.class)
                                .containsOnlyKeys("mine");

                        context.getBean(Reminders.class).remind("ann", 1);
                        assertThat(calls(context).all()).isEmpty();
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).methods()).containsExactly("remind");
                    });
        }
    }

    // --- user beans ---------------------------------------------------------------------------

    static class SelfCalling {
        final Calls calls;

        SelfCalling(Calls calls) {
            this.calls = calls;
        }

        public void outer(String what) {
            inner(what);
        }

        @WheelTimeout("1s")
        public void inner(String what) {
            calls.record("inner", what);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPostProcessor {
        @Bean
        static WheelTimeoutBeanPostProcessor mine() {
            return new WheelTimeoutBeanPostProcessor();
        }
    }
}
