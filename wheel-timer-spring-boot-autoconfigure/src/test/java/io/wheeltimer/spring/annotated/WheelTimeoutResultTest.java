package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.THIRTY_SECONDS;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.WORKER;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.timer;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.wheelTimeoutRunner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.TimerStats;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Call;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Reminders;
import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What a call of a {@code @WheelTimeout} method returns at once, per return type, and how the
 * method's own result or failure reaches the caller after the run (driven by a {@link ManualTicker}).
 */
class WheelTimeoutResultTest {

    private final ApplicationContextRunner runner = wheelTimeoutRunner();

    /**
     * What the proxy returns at the call, and how the method's own result reaches the caller, per
     * return type.
     */
    @Nested
    class ReturnTypes {

        @Test
        void timeoutReturnTypeGivesTheHandleOfTheScheduledCall() {
            runner.withBean(Reminders.class).run(context -> {
                Timeout timeout = context.getBean(Reminders.class).remindLater("ann");

                assertThat(timeout).isNotNull();
                assertThat(timeout.timer()).isSameAs(timer(context));
                assertThat(timeout.isExpired()).isFalse();
                assertThat(timeout.isCancelled()).isFalse();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(calls(context).methods()).containsExactly("remindLater");
                assertThat(timeout.isExpired()).isTrue();
                assertThat(timeout.cancel()).isFalse();
            });
        }

        @Test
        void cancelledTimeoutNeverRunsTheMethod() {
            runner.withBean(Reminders.class).run(context -> {
                Timeout timeout = context.getBean(Reminders.class).remindLater("ann");

                assertThat(timeout.cancel()).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(calls(context).all()).isEmpty();
                assertThat(timeout.isCancelled()).isTrue();
                assertThat(timer(context).stats().cancelled()).isEqualTo(1);
                assertThat(timer(context).stats().expired()).isZero();
            });
        }

        @Test
        void completableFutureCompletesWithTheMethodsResultAfterTheRun() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> greeting =
                        context.getBean(Reminders.class).greet("ann");
                assertThat(greeting).isNotDone();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(greeting).isCompletedWithValue("hello ann");
            });
        }

        @Test
        void completableFutureFollowsTheMethodsOwnFuture() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                CompletableFuture<String> result = reminders.ownFuture();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(calls(context).methods()).containsExactly("ownFuture");
                assertThat(result).isNotDone(); // the method ran; its own future has not completed yet

                reminders.own().complete("done later");
                assertThat(result).isCompletedWithValue("done later");
            });
        }

        @Test
        void completionStageCompletesWithTheMethodsResultAfterTheRun() {
            runner.withBean(Reminders.class).run(context -> {
                CompletionStage<String> greeting =
                        context.getBean(Reminders.class).greetStage("bob");
                assertThat(greeting.toCompletableFuture()).isNotDone();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(greeting.toCompletableFuture()).isCompletedWithValue("hello bob");
            });
        }

        @Test
        void futureCompletesWithTheResultOfTheMethodsPlainFuture() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> greeting = context.getBean(Reminders.class).greetFuture("cy");
                assertThat(greeting.isDone()).isFalse();

                ticker(context).advance(THIRTY_SECONDS);
                // A plain Future (not a CompletionStage) is waited for off the worker thread.
                assertThat(greeting.get(10, TimeUnit.SECONDS)).isEqualTo("hello cy");
                assertThat(calls(context).all())
                        .singleElement()
                        .extracting(Call::thread)
                        .isEqualTo(WORKER);
            });
        }

        static Stream<Arguments> cancellableResults() {
            return Stream.of(
                    Arguments.of("CompletableFuture", (Function<Reminders, Future<String>>) r -> r.greet("ann"), false),
                    Arguments.of(
                            "CompletionStage",
                            (Function<Reminders, Future<String>>)
                                    r -> r.greetStage("bob").toCompletableFuture(),
                            true),
                    Arguments.of("Future", (Function<Reminders, Future<String>>) r -> r.greetFuture("cy"), true));
        }

        /** Cancelling what the call returned cancels its timeout: the method never runs. */
        @ParameterizedTest(name = "{0}")
        @MethodSource("cancellableResults")
        void cancellingTheReturnedFutureCancelsTheTimeout(
                String returnType, Function<Reminders, Future<String>> call, boolean mayInterruptIfRunning) {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> greeting = call.apply(context.getBean(Reminders.class));

                assertThat(greeting.cancel(mayInterruptIfRunning)).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(greeting.isCancelled()).isTrue();
                assertThat(calls(context).all()).isEmpty();
                TimerStats stats = timer(context).stats();
                assertThat(stats.cancelled()).isEqualTo(1);
                assertThat(stats.expired()).isZero();
                assertThat(stats.pending()).isZero();
            });
        }

        @Test
        void stoppingTheTimerCancelsThePendingFuture() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> greeting =
                        context.getBean(Reminders.class).greet("ann");
                List<TimeoutInfo> upcoming = timer(context).upcoming(10);
                assertThat(upcoming).hasSize(1);

                Set<Timeout> neverRan = timer(context).stop();

                assertThat(neverRan).hasSize(1);
                assertThat(greeting).isCancelled();
                assertThat(calls(context).all()).isEmpty();
            });
        }
    }

    /** A method that fails on the worker: counted, logged, or handed to the caller's future. */
    @Nested
    class Failures {

        @Test
        void failureOfAVoidMethodIsCountedAndLogged() {
            runner.withBean(Reminders.class).run(context -> {
                try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                    context.getBean(Reminders.class).fail("boom-void");

                    ticker(context).advance(THIRTY_SECONDS);

                    assertThat(calls(context).methods()).containsExactly("fail");
                    assertThat(timer(context).stats().failed()).isEqualTo(1);
                    assertThat(timer(context).stats().expired()).isEqualTo(1);
                    assertFailureLogged(log, Reminders.class.getName() + ".fail(String)", "boom-void");
                }
            });
        }

        @Test
        void failureOfATimeoutMethodIsCountedAndLogged() {
            runner.withBean(Reminders.class).run(context -> {
                try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                    Timeout timeout = context.getBean(Reminders.class).failWithHandle("boom-timeout");

                    ticker(context).advance(THIRTY_SECONDS);

                    assertThat(timeout.isExpired()).isTrue();
                    assertThat(timer(context).stats().failed()).isEqualTo(1);
                    assertFailureLogged(log, Reminders.class.getName() + ".failWithHandle(String)", "boom-timeout");
                }
            });
        }

        @Test
        void checkedExceptionOfAVoidMethodIsCountedAsFailed() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).failChecked("io");

                ticker(context).advance(THIRTY_SECONDS);

                assertThat(calls(context).methods()).containsExactly("failChecked");
                assertThat(timer(context).stats().failed()).isEqualTo(1);
            });
        }

        @Test
        void workerGoesOnAfterAFailedMethod() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.fail("first");
                ticker(context).advance(THIRTY_SECONDS);
                reminders.remind("ann", 1);
                ticker(context).advance(THIRTY_SECONDS);

                assertThat(calls(context).methods()).containsExactly("fail", "remind");
            });
        }

        /** A call of a future method that declares a checked exception. */
        interface FutureCall {
            Future<String> on(Reminders reminders) throws Exception;
        }

        static Stream<Arguments> failedResults() {
            return Stream.of(
                    Arguments.of(
                            "a future method that throws",
                            (FutureCall) r -> r.failFuture("boom-future"),
                            IllegalStateException.class,
                            "boom-future"),
                    Arguments.of(
                            "a future method that throws a checked exception",
                            (FutureCall) r -> r.failFutureChecked("io"),
                            java.io.IOException.class,
                            "io"),
                    Arguments.of(
                            "a future method that throws an Error",
                            (FutureCall) r -> r.failFutureWithError("error"),
                            AssertionError.class,
                            "error"),
                    Arguments.of(
                            "the method's own future that fails",
                            (FutureCall) r -> r.failedFuture("own-failure"),
                            IllegalStateException.class,
                            "own-failure"),
                    Arguments.of(
                            "the method's own plain Future that fails",
                            (FutureCall) r -> r.failedPlainFuture("plain-failure"),
                            IllegalStateException.class,
                            "plain-failure"));
        }

        /**
         * The failure completes the returned future exceptionally (done, and {@code get} throws it as
         * the cause), and the timer does not count it: the caller has it. A plain {@code Future} is
         * waited for off the worker, hence the wait.
         */
        @ParameterizedTest(name = "{0}")
        @MethodSource("failedResults")
        void failureOfAFutureMethodCompletesTheReturnedFutureExceptionallyAndIsNotCounted(
                String failure, FutureCall call, Class<? extends Throwable> cause, String message) {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> result = call.on(context.getBean(Reminders.class));

                ticker(context).advance(THIRTY_SECONDS);

                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                        .havingCause()
                        .isInstanceOf(cause)
                        .withMessage(message);
                assertThat(result.isDone()).isTrue();
                assertThat(result.isCancelled()).isFalse();
                assertThat(timer(context).stats().failed()).isZero();
                assertThat(timer(context).stats().expired()).isEqualTo(1);
            });
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    private static void assertFailureLogged(LogCapture log, String description, String message) {
        // Filtered by the description: other timers of the JVM may log meanwhile.
        assertThat(log.records())
                .filteredOn(r -> r.getMessage().contains(description))
                .singleElement()
                .satisfies((LogRecord r) -> {
                    assertThat(r.getLevel().intValue()).isGreaterThanOrEqualTo(Level.WARNING.intValue());
                    assertThat(r.getThrown())
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(message);
                });
    }
}
