package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.assertStartupFailsNaming;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssertAlternative;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Where a {@link WheelTimeout @WheelTimeout} call runs (the named
 * executor, else {@code wheel-timer.annotation.executor}, else the timer's own), that a failure or a
 * refusal there is still counted by the timer, and that every returned future completes.
 */
class WheelTimeoutExecutorTest {

    private static final String WORKER = "test-wheel";

    /** Without Executor beans of the application's own, so that Boot's applicationTaskExecutor can apply. */
    private final ApplicationContextRunner withoutExecutors = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
            .withPropertyValues("wheel-timer.thread-name=" + WORKER)
            .withBean(ManualTicker.class, ManualTicker::new)
            .withBean(Calls.class, Calls::new);

    private final ApplicationContextRunner runner = withoutExecutors.withUserConfiguration(Executors3.class);

    /** With Boot's applicationTaskExecutor, and calls that name no executor. */
    private final ApplicationContextRunner withApplicationTaskExecutor = withoutExecutors
            .withBean(DefaultJobs.class)
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class));

    @Nested
    class WhereTheCallRuns {

        static Stream<Arguments> namedExecutors() {
            return Stream.of(
                    Arguments.of(
                            "the executor the annotation names",
                            (Consumer<Jobs>) jobs -> jobs.onOwnExecutor("a"),
                            new String[0],
                            "own-"),
                    Arguments.of(
                            "the annotation property's executor, for calls that name none",
                            (Consumer<Jobs>) jobs -> jobs.plain("a"),
                            new String[] {"wheel-timer.annotation.executor=propertyExecutor"},
                            "property-"),
                    Arguments.of(
                            "the annotation's executor, which outranks the property",
                            (Consumer<Jobs>) jobs -> jobs.onOwnExecutor("a"),
                            new String[] {"wheel-timer.annotation.executor=propertyExecutor"},
                            "own-"),
                    Arguments.of(
                            "the timer's own executor, without the default executor bean",
                            (Consumer<Jobs>) jobs -> jobs.plain("a"),
                            new String[] {"wheel-timer.executor=timerExecutor"},
                            "timer-"));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("namedExecutors")
        void theChosenExecutorRunsTheCall(
                String executor, Consumer<Jobs> call, String[] properties, String threadNamePrefix) {
            runner.withBean(Jobs.class).withPropertyValues(properties).run(context -> {
                call.accept(context.getBean(Jobs.class));
                advance(context);
                awaitTheOneCallOnThreadsNamed(context, threadNamePrefix);
            });
        }

        @Test
        void applicationTaskExecutorRunsThemByDefault() {
            withApplicationTaskExecutor
                    .withPropertyValues("spring.task.execution.thread-name-prefix=app-task-")
                    .run(context -> {
                        assertThat(context).hasBean("applicationTaskExecutor");
                        context.getBean(DefaultJobs.class).plain("a");
                        advance(context);
                        awaitTheOneCallOnThreadsNamed(context, "app-task-");
                    });
        }

        @Test
        void withoutTheDefaultExecutorBeanTheWorkerRunsThemAndAdvanceWaitsForTheRun() {
            runner.withBean(Jobs.class).run(context -> {
                assertThat(context).doesNotHaveBean("applicationTaskExecutor");
                assertAPlainCallRunsOnTheWorker(context, context.getBean(Jobs.class)::plain);
            });
        }

        @Test
        void anEmptyAnnotationExecutorPropertyKeepsCallsOnTheWorkerDespiteApplicationTaskExecutor() {
            withApplicationTaskExecutor
                    .withPropertyValues("wheel-timer.annotation.executor=")
                    .run(context -> {
                        assertThat(context).hasBean("applicationTaskExecutor");
                        assertAPlainCallRunsOnTheWorker(context, context.getBean(DefaultJobs.class)::plain);
                    });
        }

        @Test
        void otherTasksOfTheTimerStillRunOnTheWorker() {
            runner.withBean(Jobs.class)
                    .withPropertyValues("wheel-timer.annotation.executor=propertyExecutor")
                    .run(context -> {
                        AtomicReference<String> thread = new AtomicReference<>();
                        timer(context)
                                .newTimeout(
                                        t -> thread.set(Thread.currentThread().getName()), Duration.ofSeconds(1));
                        advance(context);
                        assertThat(thread).hasValue(WORKER);
                    });
        }

        @Test
        @EnabledForJreRange(min = JRE.JAVA_21)
        void withVirtualThreadsEnabledCallsRunOnVirtualThreads() {
            withApplicationTaskExecutor
                    .withPropertyValues("spring.threads.virtual.enabled=true")
                    .run(context -> {
                        CompletableFuture<Boolean> virtual =
                                context.getBean(DefaultJobs.class).isVirtual();
                        advance(context);
                        assertThat(virtual)
                                .succeedsWithin(Duration.ofSeconds(30))
                                .isEqualTo(true);
                    });
        }

        @Test
        void anExplicitNameThatIsNotAnExecutorBeanFailsStartupNamingTheMethod() {
            runner.withBean(NotAnExecutor.class)
                    .run(context -> assertStartupFailsNaming(
                            context,
                            NotAnExecutor.class.getName() + ".run()",
                            "executor 'calls'",
                            "is not the name of a java.util.concurrent.Executor bean",
                            "ownExecutor"));
        }
    }

    /**
     * {@code wheel-timer.annotation.executor}: a name set there must be an Executor bean, as
     * {@code wheel-timer.executor} and {@code @WheelTimeout(executor = ...)} must; only the default
     * name may be absent.
     */
    @Nested
    class TheExecutorProperty {

        @Test
        void aNameOfNoBeanFailsStartupNamingThePropertyAndTheValue() {
            runner.withBean(Jobs.class)
                    .withPropertyValues("wheel-timer.annotation.executor=nope")
                    .run(context -> assertStartupFailsNaming(
                            context,
                            "wheel-timer.annotation.executor",
                            "'nope'",
                            "there is no bean named 'nope'",
                            "ownExecutor",
                            "propertyExecutor"));
        }

        @Test
        void aNameOfNoBeanFailsStartupEvenWithoutAnnotatedMethods() {
            runner.withPropertyValues("wheel-timer.annotation.executor=nope")
                    .run(context -> assertStartupFailsNaming(context, "wheel-timer.annotation.executor", "'nope'"));
        }

        @Test
        void aNameOfABeanThatIsNoExecutorFailsStartup() {
            runner.withBean(Jobs.class)
                    .withBean("text", String.class, () -> "not an executor")
                    .withPropertyValues("wheel-timer.annotation.executor=text")
                    .run(context -> assertStartupFailsNaming(
                            context,
                            "wheel-timer.annotation.executor",
                            "the bean 'text' is not a java.util.concurrent.Executor"));
        }

        @Test
        void theDefaultNameMayBeAbsentEvenWhenSetExplicitly() {
            runner.withBean(Jobs.class)
                    .withPropertyValues("wheel-timer.annotation.executor=applicationTaskExecutor")
                    .run(context -> {
                        assertThat(context).hasNotFailed().doesNotHaveBean("applicationTaskExecutor");
                        assertAPlainCallRunsOnTheWorker(context, context.getBean(Jobs.class)::plain);
                    });
        }
    }

    @Nested
    class FailuresAreCounted {

        @Test
        void aFailingRunOnAnotherExecutorIsCountedAsFailed() {
            runner.withBean(Jobs.class).run(context -> {
                context.getBean(Jobs.class).failOnOwnExecutor("boom");
                advance(context);
                await().untilAsserted(() ->
                        assertThat(timer(context).stats().failed()).isEqualTo(1));
                assertThat(calls(context).methods()).containsExactly("failOnOwnExecutor");
            });
        }

        /**
         * A timer built without {@link WheelTimeoutTaskExecutor} (here: the Netty way) still runs the
         * call on its executor; the worker hands it over from the task itself, so a failure there
         * is logged but the timer cannot count it.
         */
        @Test
        void onATimerBuiltWithoutTheStartersTaskExecutorTheCallStillRunsOnItsExecutor() {
            runner.withBean(Jobs.class)
                    .withUserConfiguration(NettyStyleTimer.class)
                    .run(context -> {
                        HashedWheelTimer nettyStyle = context.getBean("nettyStyleTimer", HashedWheelTimer.class);
                        context.getBean(Jobs.class).onOwnExecutor("a");
                        context.getBean(Jobs.class).failOnOwnExecutor("boom");
                        advance(context);
                        await().untilAsserted(() -> assertThat(calls(context).all())
                                .hasSize(2)
                                .allSatisfy(call -> assertThat(call.thread()).startsWith("own-")));
                        assertThat(nettyStyle.stats().expired()).isEqualTo(2);
                        assertThat(nettyStyle.stats().failed()).isZero();
                    });
        }

        @Test
        void aRefusedRunIsCountedAsFailed() {
            runner.withBean(Jobs.class).run(context -> {
                context.getBean(Jobs.class).onRefusingExecutor();
                advance(context);
                assertThat(timer(context).stats().failed()).isEqualTo(1);
                assertThat(calls(context).all()).isEmpty();
            });
        }
    }

    /** Every future of a {@code @WheelTimeout} method completes, whatever happens to the call. */
    @Nested
    class EveryFutureCompletes {

        @Test
        void withTheValue() {
            runner.withBean(Jobs.class).run(context -> {
                CompletableFuture<String> result = context.getBean(Jobs.class).valueOnOwnExecutor("v");
                advance(context);
                assertThat(result).succeedsWithin(Duration.ofSeconds(30)).isEqualTo("v!");
            });
        }

        @Test
        void withTheMethodsFailure() {
            runner.withBean(Jobs.class).run(context -> {
                CompletableFuture<String> result = context.getBean(Jobs.class).failingFutureOnOwnExecutor("bad");
                advance(context);
                assertCauseOfFailure(result)
                        .isInstanceOf(IllegalArgumentException.class)
                        .withMessage("bad");
            });
        }

        @Test
        void withTheRefusalOfTheAnnotationsExecutor() {
            runner.withBean(Jobs.class).run(context -> {
                CompletableFuture<String> result = context.getBean(Jobs.class).futureOnRefusingExecutor();
                advance(context);
                assertCauseOfFailure(result).isInstanceOf(RejectedExecutionException.class);
            });
        }

        /** {@code wheel-timer.executor} names an executor that refuses the call: its future still completes. */
        @Test
        void withTheRefusalOfTheTimersOwnExecutor() {
            runner.withBean(Jobs.class)
                    .withPropertyValues("wheel-timer.executor=refusingExecutor")
                    .run(context -> {
                        CompletableFuture<String> result =
                                context.getBean(Jobs.class).value("v");
                        advance(context);
                        assertCauseOfFailure(result).isInstanceOf(RejectedExecutionException.class);
                        assertThat(timer(context).stats().failed()).isEqualTo(1);
                    });
        }

        @Test
        void cancelledWhenTheTimerStopsBeforeTheRun() {
            runner.withBean(Jobs.class).run(context -> {
                CompletableFuture<String> result = context.getBean(Jobs.class).value("v");
                timer(context).stop();
                assertThat(result).isCancelled();
                assertThat(calls(context).all()).isEmpty();
            });
        }

        @Test
        void cancelledWhenTheTimerStopsWhileTheCallWaitsForItsExecutor() throws Exception {
            runner.withBean(Jobs.class).run(context -> {
                Executors3 executors = context.getBean(Executors3.class);
                CountDownLatch busy = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                executors.own.execute(() -> {
                    busy.countDown();
                    hold(release);
                });
                assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<String> result = context.getBean(Jobs.class).valueOnOwnExecutor("v");
                advance(context); // handed over: queued behind the busy task
                timer(context).stop();
                release.countDown();
                assertThat(result).failsWithin(Duration.ofSeconds(30));
                assertThat(result).isCancelled();
                assertThat(calls(context).all())
                        .as("never started after the stop")
                        .isEmpty();
            });
        }
    }

    private static void hold(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Calls {@code plain("a")} and moves the time past its delay; then, without waiting (an advance
     * returns once the runs on the worker have finished), asserts that the one call ran on the worker.
     */
    private static void assertAPlainCallRunsOnTheWorker(AssertableApplicationContext context, Consumer<String> plain) {
        plain.accept("a");
        advance(context);
        assertThat(calls(context).all())
                .singleElement()
                .satisfies(call -> assertThat(call.thread()).isEqualTo(WORKER));
    }

    /** Waits until exactly one call ran, on a thread whose name starts with {@code prefix}. */
    private static void awaitTheOneCallOnThreadsNamed(AssertableApplicationContext context, String prefix) {
        await().untilAsserted(() -> assertThat(calls(context).all())
                .singleElement()
                .satisfies(call -> assertThat(call.thread()).startsWith(prefix)));
    }

    /** Asserts that {@code result} fails within 30 s; what it failed with, to assert on. */
    private static ThrowableAssertAlternative<?> assertCauseOfFailure(CompletableFuture<?> result) {
        return assertThat(result)
                .failsWithin(Duration.ofSeconds(30))
                .withThrowableOfType(ExecutionException.class)
                .havingCause();
    }

    private static void advance(AssertableApplicationContext context) {
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
    }

    private static HashedWheelTimer timer(AssertableApplicationContext context) {
        return context.getBean("wheelTimer", HashedWheelTimer.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class NettyStyleTimer {
        @Bean
        HashedWheelTimer nettyStyleTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("netty-style").ticker(ticker).build();
        }
    }

    /** Three executors, each naming its threads, and one that refuses everything. */
    @Configuration(proxyBeanMethods = false)
    static class Executors3 {
        final ExecutorService own = Executors.newSingleThreadExecutor(new CustomizableThreadFactory("own-"));

        @Bean(destroyMethod = "shutdownNow")
        ExecutorService ownExecutor() {
            return own;
        }

        @Bean(destroyMethod = "shutdownNow")
        ExecutorService propertyExecutor() {
            return Executors.newSingleThreadExecutor(new CustomizableThreadFactory("property-"));
        }

        @Bean(destroyMethod = "shutdownNow")
        ExecutorService timerExecutor() {
            return Executors.newSingleThreadExecutor(new CustomizableThreadFactory("timer-"));
        }

        @Bean
        Executor refusingExecutor() {
            return command -> {
                throw new RejectedExecutionException("full");
            };
        }
    }

    static class Jobs {
        private final Calls calls;

        Jobs(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s", executor = "ownExecutor")
        public void onOwnExecutor(String what) {
            calls.record("onOwnExecutor", what);
        }

        @WheelTimeout(delay = "1s")
        public void plain(String what) {
            calls.record("plain", what);
        }

        @WheelTimeout(delay = "1s", executor = "ownExecutor")
        public void failOnOwnExecutor(String why) {
            calls.record("failOnOwnExecutor", why);
            throw new IllegalStateException(why);
        }

        @WheelTimeout(delay = "1s", executor = "refusingExecutor")
        public Timeout onRefusingExecutor() {
            calls.record("onRefusingExecutor");
            return null;
        }

        @WheelTimeout(delay = "1s", executor = "ownExecutor")
        public CompletableFuture<String> valueOnOwnExecutor(String value) {
            calls.record("valueOnOwnExecutor", value);
            return CompletableFuture.completedFuture(value + "!");
        }

        @WheelTimeout(delay = "1s")
        public CompletableFuture<String> value(String value) {
            calls.record("value", value);
            return CompletableFuture.completedFuture(value + "!");
        }

        @WheelTimeout(delay = "1s", executor = "ownExecutor")
        public CompletableFuture<String> failingFutureOnOwnExecutor(String why) {
            throw new IllegalArgumentException(why);
        }

        @WheelTimeout(delay = "1s", executor = "refusingExecutor")
        public CompletableFuture<String> futureOnRefusingExecutor() {
            calls.record("futureOnRefusingExecutor");
            return CompletableFuture.completedFuture("never");
        }
    }

    /** Calls that name no executor, for a context without Executor beans of its own. */
    static class DefaultJobs {
        private final Calls calls;

        DefaultJobs(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s")
        public void plain(String what) {
            calls.record("plain", what);
        }

        @WheelTimeout(delay = "1s")
        public CompletableFuture<Boolean> isVirtual() {
            try {
                return CompletableFuture.completedFuture(
                        (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
            } catch (ReflectiveOperationException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }

    static class NotAnExecutor {
        @WheelTimeout(delay = "1s", executor = "calls")
        public void run() {}
    }
}
