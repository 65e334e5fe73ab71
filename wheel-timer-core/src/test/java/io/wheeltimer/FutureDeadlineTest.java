package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@link Timer#orTimeout} and {@link Timer#completeOnTimeout}: the JDK's semantics, on the wheel. */
class FutureDeadlineTest {

    static final Duration TICK = Duration.ofMillis(10);

    static HashedWheelTimer manualTimer(ManualTicker ticker) {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(TICK)
                .ticksPerWheel(64)
                .build();
        timer.start();
        return timer;
    }

    static Throwable failureOf(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Nested
    class OnAManualClock {

        final ManualTicker ticker = new ManualTicker();
        final HashedWheelTimer timer = manualTimer(ticker);

        @AfterEach
        void stop() {
            timer.stop();
        }

        /** What the deadlines are given through: the timer's own {@code orTimeout}. */
        Timer limiter() {
            return timer;
        }

        @Test
        void orTimeoutFailsTheSameFutureWithTimeoutExceptionOnceTheLimitPasses() {
            CompletableFuture<String> future = new CompletableFuture<>();

            assertThat(limiter().orTimeout(future, Duration.ofMillis(50))).isSameAs(future);
            ticker.advance(Duration.ofMillis(49));
            assertThat(future).isNotDone();
            ticker.advance(Duration.ofMillis(1));

            assertThat(failureOf(future)).isInstanceOf(TimeoutException.class);
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void theTimeoutExceptionNamesTheLimitPrintsAsATimeoutExceptionAndHasNoStackTrace() {
            CompletableFuture<String> future = limiter().orTimeout(new CompletableFuture<>(), Duration.ofSeconds(2));
            ticker.advance(Duration.ofSeconds(2));

            Throwable failure = failureOf(future);
            assertThat(failure).isInstanceOf(TimeoutException.class).hasMessage("did not complete within PT2S");
            assertThat(failure).hasToString("java.util.concurrent.TimeoutException: did not complete within PT2S");
            assertThat(failure.getStackTrace()).isEmpty();
            // What a log of the join shows.
            assertThatThrownBy(future::join)
                    .isInstanceOf(CompletionException.class)
                    .hasMessage("java.util.concurrent.TimeoutException: did not complete within PT2S");
        }

        @Test
        void eachFutureIsToldItsOwnLimitWhenLimitsAlternate() {
            List<CompletableFuture<String>> futures = new ArrayList<>();
            List<Duration> limits = List.of(
                    Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofMillis(200));
            for (Duration limit : limits) {
                futures.add(limiter().orTimeout(new CompletableFuture<>(), limit));
            }
            ticker.advance(Duration.ofMillis(300));

            assertThat(futures)
                    .extracting(f -> failureOf(f).getMessage())
                    .containsExactly(
                            "did not complete within PT0.3S",
                            "did not complete within PT0.1S",
                            "did not complete within PT0.3S",
                            "did not complete within PT0.2S");
        }

        @Test
        void completeOnTimeoutCompletesWithTheValueOnceTheLimitPasses() {
            CompletableFuture<String> future = new CompletableFuture<>();

            assertThat(limiter().completeOnTimeout(future, "fallback", Duration.ofMillis(30)))
                    .isSameAs(future);
            ticker.advance(Duration.ofMillis(29));
            assertThat(future).isNotDone();
            ticker.advance(Duration.ofMillis(1));

            assertThat(future.join()).isEqualTo("fallback");
        }

        @Test
        void theDeadlineIsListedUnderItsFutureAndCancelledWithIt() {
            CompletableFuture<String> limited = limiter().orTimeout(new CompletableFuture<>(), Duration.ofSeconds(5));
            CompletableFuture<String> defaulted =
                    limiter().completeOnTimeout(new CompletableFuture<>(), "v", Duration.ofSeconds(6));

            assertThat(timer.upcoming(2))
                    .extracting(TimeoutInfo::task)
                    .containsExactly("orTimeout(" + limited + ")", "completeOnTimeout(" + defaulted + ")");
            limited.complete("done");
            defaulted.complete("done");
            assertThat(timer.stats().cancelled()).isEqualTo(2);
        }

        @Test
        void completeOnTimeoutAcceptsANullValue() {
            CompletableFuture<String> future =
                    limiter().completeOnTimeout(new CompletableFuture<>(), null, Duration.ofMillis(10));
            ticker.advance(Duration.ofMillis(10));

            assertThat(future).isCompletedWithValue(null);
        }

        @Test
        void aFutureThatCompletesFirstKeepsItsResultAndItsTimeoutIsCancelledAtOnce() {
            CompletableFuture<String> future = limiter().orTimeout(new CompletableFuture<>(), Duration.ofSeconds(5));
            assertThat(timer.pendingTimeouts()).isOne();

            future.complete("value");

            assertThat(timer.pendingTimeouts())
                    .as("pending right after completion, before any tick")
                    .isZero();
            ticker.advance(Duration.ofSeconds(10));
            assertThat(future).isCompletedWithValue("value");
            assertThat(timer.stats().expired()).isZero();
            assertThat(timer.upcoming(10)).isEmpty();
        }

        @Test
        void aFutureThatFailsFirstKeepsItsFailureAndItsTimeoutIsCancelled() {
            CompletableFuture<String> future =
                    limiter().completeOnTimeout(new CompletableFuture<>(), "late", Duration.ofSeconds(5));
            IllegalStateException failure = new IllegalStateException("boom");

            future.completeExceptionally(failure);
            ticker.advance(Duration.ofSeconds(10));

            assertThat(failureOf(future)).isSameAs(failure);
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void anAlreadyCompleteFutureIsReturnedWithoutSchedulingAnything() {
            CompletableFuture<String> done = CompletableFuture.completedFuture("x");

            assertThat(limiter().orTimeout(done, Duration.ofSeconds(1))).isSameAs(done);
            assertThat(limiter().completeOnTimeout(done, "y", Duration.ofSeconds(1)))
                    .isSameAs(done);
            assertThat(timer.stats().scheduled()).isZero();
        }

        @Test
        void aTimeoutOfZeroOrLessFiresOnTheNextTick() {
            CompletableFuture<String> zero = limiter().orTimeout(new CompletableFuture<>(), Duration.ZERO);
            CompletableFuture<String> negative =
                    limiter().completeOnTimeout(new CompletableFuture<>(), "v", Duration.ofSeconds(-3));
            assertThat(zero).isNotDone();

            ticker.advance(TICK);

            assertThat(failureOf(zero)).isInstanceOf(TimeoutException.class);
            assertThat(negative).isCompletedWithValue("v");
        }

        @Test
        void nullArgumentsAreRejectedNamingTheParameter() {
            assertThatThrownBy(() -> limiter().orTimeout(null, Duration.ZERO))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("future");
            assertThatThrownBy(() -> limiter().orTimeout(new CompletableFuture<>(), null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("timeout");
            assertThatThrownBy(() -> limiter().completeOnTimeout(null, "v", Duration.ZERO))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("future");
            assertThatThrownBy(() -> limiter().completeOnTimeout(new CompletableFuture<>(), "v", null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("timeout");
        }

        @Test
        void aStoppedTimerRefusesTheDeadlineAndLeavesTheFutureUntouched() {
            timer.stop();
            CompletableFuture<String> future = new CompletableFuture<>();

            assertThatThrownBy(() -> limiter().orTimeout(future, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(future).isNotDone();
            assertThat(future.getNumberOfDependents())
                    .as("no callback left behind")
                    .isZero();
        }

        @Test
        void stoppingTheTimerCancelsPendingDeadlinesAndLeavesTheirFuturesIncomplete() {
            CompletableFuture<String> future = limiter().orTimeout(new CompletableFuture<>(), Duration.ofSeconds(1));

            assertThat(timer.stop())
                    .singleElement()
                    .satisfies(timeout -> assertThat(timeout.isCancelled()).isTrue())
                    .asString()
                    .contains("task: orTimeout(" + future + ")");

            assertThat(future).isNotDone();
            assertThat(future.complete("after the stop")).isTrue();
        }
    }

    /**
     * The same through {@link Timer}'s default methods, as any other {@code Timer} gets them: a
     * timer that offers only {@code newTimeout} and {@code stop}.
     */
    @Nested
    class ThroughTheTimerDefaults extends OnAManualClock {

        final Timer plain = new Timer() {
            @Override
            public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
                return timer.newTimeout(task, delay, unit);
            }

            @Override
            public java.util.Set<Timeout> stop() {
                return timer.stop();
            }
        };

        @Override
        Timer limiter() {
            return plain;
        }
    }

    @Nested
    class UnderRacingCompletion {

        /**
         * Two threads complete futures whose 1 ms limits fire on the worker at the same moment:
         * every future ends exactly once, with its value or with TimeoutException, and the timer
         * holds nothing afterwards.
         */
        @Test
        void eachFutureCompletesExactlyOnceAndNothingStaysPending() throws Exception {
            HashedWheelTimer timer = HashedWheelTimer.builder()
                    .tickDuration(Duration.ofMillis(1))
                    .build();
            try {
                int perThread = 20_000;
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                Duration[] limits = new Duration[2 * perThread];
                AtomicInteger callbacks = new AtomicInteger();
                for (int i = 0; i < 2 * perThread; i++) {
                    CompletableFuture<Integer> future = new CompletableFuture<>();
                    future.whenComplete((v, e) -> callbacks.incrementAndGet());
                    futures.add(future);
                }
                CountDownLatch start = new CountDownLatch(1);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int offset = t * perThread;
                    Thread thread = new Thread(() -> {
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = offset; i < offset + perThread; i++) {
                            CompletableFuture<Integer> future = futures.get(i);
                            Duration limit = Duration.ofNanos(random.nextLong(2_000_000));
                            limits[i] = limit;
                            if (random.nextBoolean()) {
                                timer.orTimeout(future, limit);
                            } else {
                                timer.completeOnTimeout(future, -1, limit);
                            }
                            if (random.nextInt(4) == 0) {
                                Thread.onSpinWait();
                            }
                            future.complete(i);
                        }
                    });
                    thread.start();
                    threads.add(thread);
                }
                start.countDown();
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(60));
                }
                for (int i = 0; i < futures.size(); i++) {
                    CompletableFuture<Integer> future = futures.get(i);
                    try {
                        assertThat(future.get(10, TimeUnit.SECONDS)).isIn(i, -1);
                    } catch (ExecutionException e) {
                        // Limits differ from call to call and thread to thread: each names its own.
                        assertThat(e.getCause())
                                .isInstanceOf(TimeoutException.class)
                                .hasMessage("did not complete within " + limits[i]);
                    }
                }
                assertThat(callbacks).hasValue(futures.size());
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    assertThat(timer.pendingTimeouts()).isZero();
                    assertThat(timer.upcoming(1)).isEmpty();
                });
                assertThat(timer.stats().expired() + timer.stats().cancelled()).isEqualTo(futures.size());
            } finally {
                timer.stop();
            }
        }
    }
}
