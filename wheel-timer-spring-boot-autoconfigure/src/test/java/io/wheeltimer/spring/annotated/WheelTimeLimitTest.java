package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@link WheelTimeLimit @WheelTimeLimit} on each return type, with a {@link ManualTicker} driving
 * time (100 ms ticks): the method runs at once, its result gets a deadline, a timeout names the
 * method and the limit, cancels the method's own work and is counted. Startup failures are in
 * {@link WheelTimeLimitStartupValidationTest}.
 */
class WheelTimeLimitTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    PropertyPlaceholderAutoConfiguration.class,
                    WheelTimerAutoConfiguration.class,
                    WheelTimeLimitAutoConfiguration.class))
            .withBean(ManualTicker.class, ManualTicker::new)
            .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(Quotes.class);

    /** The method's own futures and publishers, handed out in call order, completed by the test. */
    static class Quotes {
        private final List<CompletableFuture<String>> sources = new CopyOnWriteArrayList<>();
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger cancelledSubscriptions = new AtomicInteger();
        private final Sinks.Many<String> items = Sinks.many().unicast().onBackpressureBuffer();

        // Accessors, not fields: the test sees the bean through its proxy.
        public List<CompletableFuture<String>> sources() {
            return sources;
        }

        public AtomicInteger calls() {
            return calls;
        }

        public AtomicInteger cancelledSubscriptions() {
            return cancelledSubscriptions;
        }

        public Sinks.Many<String> items() {
            return items;
        }

        private CompletableFuture<String> next() {
            calls.incrementAndGet();
            CompletableFuture<String> source = new CompletableFuture<>();
            sources.add(source);
            return source;
        }

        @WheelTimeLimit("2s")
        public CompletableFuture<String> fetch(String symbol) {
            return next();
        }

        @WheelTimeLimit(limit = "${quotes.limit:3}", timeUnit = TimeUnit.SECONDS, cancelOnTimeout = false)
        public CompletableFuture<String> fetchLeavingItRunning(String symbol) {
            return next();
        }

        @WheelTimeLimit("PT1S")
        public CompletionStage<String> stage() {
            return next();
        }

        @WheelTimeLimit("1s")
        public CompletableFuture<String> fails() {
            throw new IllegalArgumentException("no such symbol");
        }

        @WheelTimeLimit("1s")
        public CompletableFuture<String> none() {
            return null;
        }

        @WheelTimeLimit("2s")
        public Mono<String> mono() {
            return Mono.fromFuture(this::next).doOnCancel(cancelledSubscriptions::incrementAndGet);
        }

        @WheelTimeLimit(value = "2s", cancelOnTimeout = false)
        public Mono<String> monoLeftRunning() {
            return Mono.fromFuture(this::next).doOnCancel(cancelledSubscriptions::incrementAndGet);
        }

        @WheelTimeLimit("2s")
        public Flux<String> flux() {
            return items.asFlux().doOnCancel(cancelledSubscriptions::incrementAndGet);
        }
    }

    static Quotes quotes(AssertableApplicationContext context) {
        return context.getBean(Quotes.class);
    }

    static ManualTicker ticker(AssertableApplicationContext context) {
        return context.getBean(ManualTicker.class);
    }

    static HashedWheelTimer timer(AssertableApplicationContext context) {
        return context.getBean(HashedWheelTimer.class);
    }

    /**
     * Asserts that {@code result} is still pending 100 ms before its 2 s limit, and fails at the limit
     * with a TimeoutException naming {@code method} and the limit.
     */
    static void assertTimesOutAtItsTwoSecondLimit(
            AssertableApplicationContext context, CompletableFuture<?> result, String method) {
        ticker(context).advance(Duration.ofMillis(1900));
        assertThat(result).isNotDone();
        ticker(context).advance(Duration.ofMillis(100));

        assertThat(failureOf(result))
                .isExactlyInstanceOf(TimeoutException.class)
                .hasMessage(method + " did not complete within PT2S");
    }

    static Throwable failureOf(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    static double exceeded(AssertableApplicationContext context, String task) {
        var counter = context.getBean(MeterRegistry.class)
                .find("wheel.timer.time.limit.exceeded")
                .tag("name", "wheelTimer")
                .tag("task", task)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Nested
    class CompletableFutures {

        @Test
        void theMethodRunsAtOnceAndItsValueReachesTheCallerWithNothingLeftPending() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).fetch("ACME");
                assertThat(quotes(context).calls()).hasValue(1);
                assertThat(timer(context).pendingTimeouts()).isOne();

                quotes(context).sources().get(0).complete("42");

                assertThat(result).isCompletedWithValue("42");
                assertThat(timer(context).pendingTimeouts()).isZero();
                ticker(context).advance(Duration.ofSeconds(5));
                assertThat(result).isCompletedWithValue("42");
            });
        }

        @Test
        void aResultLateForItsLimitFailsWithTimeoutExceptionNamingTheMethodAndTheLimit() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).fetch("ACME");

                assertTimesOutAtItsTwoSecondLimit(context, result, Quotes.class.getName() + ".fetch(String)");
            });
        }

        @Test
        void aTimeoutCancelsTheMethodsOwnFuture() {
            runner.run(context -> {
                quotes(context).fetch("ACME");

                ticker(context).advance(Duration.ofSeconds(2));

                assertThat(quotes(context).sources().get(0)).isCancelled();
            });
        }

        @Test
        void withoutCancelOnTimeoutTheMethodsFutureIsLeftToComplete() {
            runner.withPropertyValues("quotes.limit=1").run(context -> {
                CompletableFuture<String> result = quotes(context).fetchLeavingItRunning("ACME");

                ticker(context).advance(Duration.ofSeconds(1));

                assertThat(failureOf(result)).hasMessageEndingWith("did not complete within PT1S");
                CompletableFuture<String> source = quotes(context).sources().get(0);
                assertThat(source).isNotDone();
                assertThat(source.complete("late")).isTrue();
                assertThat(failureOf(result)).isInstanceOf(TimeoutException.class);
            });
        }

        @Test
        void theCallerCancellingItsResultCancelsTheDeadlineAndTheMethodsFuture() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).fetch("ACME");

                result.cancel(true);

                assertThat(timer(context).pendingTimeouts()).isZero();
                assertThat(quotes(context).sources().get(0)).isCancelled();
                assertThat(exceeded(context, Quotes.class.getName() + ".fetch(String)"))
                        .isZero();
            });
        }

        @Test
        void aFailureOfTheMethodsFutureReachesTheCallerAsItIs() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).fetch("ACME");
                IllegalStateException failure = new IllegalStateException("provider down");

                quotes(context).sources().get(0).completeExceptionally(failure);

                assertThat(failureOf(result)).isSameAs(failure);
                assertThat(timer(context).pendingTimeouts()).isZero();
            });
        }

        @Test
        void aMethodThatThrowsOrReturnsNullIsPassedThroughAndLeavesNothingPending() {
            runner.run(context -> {
                assertThatThrownBy(() -> quotes(context).fails())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("no such symbol");
                assertThat(quotes(context).none()).isNull();
                assertThat(timer(context).pendingTimeouts()).isZero();
            });
        }

        @Test
        void aStoppedTimerRefusesTheCallBeforeTheMethodRuns() {
            runner.run(context -> {
                timer(context).stop();

                assertThatThrownBy(() -> quotes(context).fetch("ACME"))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(Quotes.class.getName() + ".fetch(String)")
                        .hasMessageContaining("timer 'wheelTimer' is stopped");
                assertThat(quotes(context).calls()).hasValue(0);
            });
        }
    }

    @Nested
    class CompletionStages {

        @Test
        void aCompletionStageIsLimitedLikeAFuture() {
            runner.run(context -> {
                CompletionStage<String> inTime = quotes(context).stage();
                CompletionStage<String> late = quotes(context).stage();
                quotes(context).sources().get(0).complete("in time");

                ticker(context).advance(Duration.ofSeconds(1));

                assertThat(inTime.toCompletableFuture()).isCompletedWithValue("in time");
                assertThat(failureOf(late))
                        .isInstanceOf(TimeoutException.class)
                        .hasMessage(Quotes.class.getName() + ".stage() did not complete within PT1S");
                assertThat(quotes(context).sources().get(1)).isCancelled();
            });
        }
    }

    @Nested
    class Meter {

        @Test
        void eachPassedLimitIsCountedByTimerAndMethod() {
            runner.run(context -> {
                quotes(context).fetch("A");
                quotes(context).fetch("B");
                quotes(context).fetch("C");
                quotes(context).sources().get(2).complete("in time");

                ticker(context).advance(Duration.ofSeconds(2));

                assertThat(exceeded(context, Quotes.class.getName() + ".fetch(String)"))
                        .isEqualTo(2);
            });
        }
    }

    @Nested
    class Reactor {

        @Test
        void aMonoValueInTimePassesThroughAndLeavesNothingPending() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).mono().toFuture();
                assertThat(timer(context).pendingTimeouts())
                        .as("the deadline starts at subscription")
                        .isOne();

                quotes(context).sources().get(0).complete("42");

                assertThat(result).isCompletedWithValue("42");
                assertThat(timer(context).pendingTimeouts()).isZero();
            });
        }

        @Test
        void aLateMonoFailsWithTimeoutExceptionAndItsSubscriptionIsDisposed() {
            runner.run(context -> {
                CompletableFuture<String> result = quotes(context).mono().toFuture();

                assertTimesOutAtItsTwoSecondLimit(context, result, Quotes.class.getName() + ".mono()");
                assertThat(quotes(context).cancelledSubscriptions()).hasValue(1);
                assertThat(exceeded(context, Quotes.class.getName() + ".mono()"))
                        .isEqualTo(1);
            });
        }

        @Test
        void withoutCancelOnTimeoutALateMonosSubscriptionIsKept() {
            runner.run(context -> {
                CompletableFuture<String> result =
                        quotes(context).monoLeftRunning().toFuture();

                ticker(context).advance(Duration.ofSeconds(2));

                assertThat(failureOf(result)).isInstanceOf(TimeoutException.class);
                assertThat(quotes(context).cancelledSubscriptions()).hasValue(0);
            });
        }

        @Test
        void fluxItemsPassAsTheyArriveAndTheWholeSequenceMustCompleteInTime() {
            runner.run(context -> {
                List<String> received = new CopyOnWriteArrayList<>();
                List<Throwable> failures = new ArrayList<>();
                quotes(context).flux().subscribe(received::add, failures::add);

                quotes(context).items().tryEmitNext("a");
                ticker(context).advance(Duration.ofMillis(1500));
                quotes(context).items().tryEmitNext("b");
                assertThat(received).containsExactly("a", "b");
                ticker(context).advance(Duration.ofMillis(500));

                assertThat(failures).singleElement().isInstanceOf(TimeoutException.class);
                assertThat(failures.get(0)).hasMessage(Quotes.class.getName() + ".flux() did not complete within PT2S");
                assertThat(quotes(context).cancelledSubscriptions()).hasValue(1);
            });
        }

        @Test
        void aFluxThatCompletesInTimeEndsNormallyAndLeavesNothingPending() {
            runner.run(context -> {
                CompletableFuture<List<String>> result =
                        quotes(context).flux().collectList().toFuture();

                quotes(context).items().tryEmitNext("a");
                quotes(context).items().tryEmitComplete();
                ticker(context).advance(Duration.ofSeconds(3));

                assertThat(result).isCompletedWithValue(List.of("a"));
                assertThat(timer(context).pendingTimeouts()).isZero();
                assertThat(timer(context).stats().expired()).isZero();
            });
        }
    }
}
