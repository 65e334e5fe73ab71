package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Scheduling, rescheduling, cancelling and finding; bad arguments; firing on time, off the worker. */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
class DurableTimerSchedulingTest {

    private static final String TASK = "order-payment";

    private final TestDatabase database;
    private DurableFixture fixture;
    private RecordingHandler handler;
    private final Map<String, Duration> lateness = new ConcurrentHashMap<>();
    private JdbcDurableTimer durable;

    DurableTimerSchedulingTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void start() {
        fixture = new DurableFixture(database);
        handler = fixture.writingHandler("one");
        durable = fixture.start(fixture.builder()
                .handler(TASK, handler)
                .handler("other-task", timeout -> {})
                .listener(new DurableTimerListener() {
                    @Override
                    public void started(DurableTimeout timeout, Duration late) {
                        lateness.put(timeout.key(), late);
                    }
                }));
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Nested
    class OneRowPerTaskAndKey {

        @Test
        void schedulingAKeyAgainMovesItsDeadlineInTheSameRow() {
            Instant first = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
            Instant second = first.plus(Duration.ofHours(1));

            durable.schedule(TASK, "order-1", first);
            DurableTimeout moved = durable.schedule(TASK, "order-1", second);

            assertThat(fixture.rows()).isEqualTo(1);
            assertThat(moved).isEqualTo(new DurableTimeout(TASK, "order-1", second));
            assertThat(durable.find(TASK, "order-1")).contains(moved);
            // Hours ahead, beyond the lookahead: kept unheld, for the poll that finds it near.
            assertThat(durable.held()).isZero();
            assertThat(fixture.holders()).containsEntry("order-1", null);
        }

        @Test
        void theSameKeyOfAnotherTaskIsAnotherTimeout() {
            durable.schedule(TASK, "order-1", Duration.ofHours(1));
            durable.schedule("other-task", "order-1", Duration.ofHours(2));

            assertThat(fixture.rows()).isEqualTo(2);
            assertThat(durable.cancel("other-task", "order-1")).isTrue();
            assertThat(durable.find(TASK, "order-1")).isPresent();
        }

        @Test
        void reschedulingEarlierFiresOnceAtTheNewDeadline() {
            durable.schedule(TASK, "moved-earlier", Duration.ofHours(1));
            Instant deadline = durable.schedule(TASK, "moved-earlier", Duration.ofMillis(200))
                    .deadline();

            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("moved-earlier") == 1);
            assertThat(handler.runs("moved-earlier").get(0).timeout().deadline())
                    .isEqualTo(deadline);
            fixture.awaitCommittedWrite("moved-earlier");
            assertThat(durable.find(TASK, "moved-earlier")).isEmpty();
        }

        @Test
        void reschedulingLaterKeepsItFromFiringAtTheOldDeadline() {
            durable.schedule(TASK, "moved-later", Duration.ofMillis(200));
            durable.schedule(TASK, "moved-later", Duration.ofHours(1));
            durable.schedule(TASK, "marker", Duration.ofMillis(600));

            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
            assertThat(handler.count("moved-later")).isZero();
            assertThat(durable.find(TASK, "moved-later")).isPresent();
        }

        @Test
        void aDeadlineInThePastIsDueAtOnceAndKeptAsGiven() {
            Instant deadline = Instant.now().minus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.MILLIS);

            DurableTimeout timeout = durable.schedule(TASK, "overdue", deadline);

            assertThat(timeout.deadline()).isEqualTo(deadline);
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("overdue") == 1);
            assertThat(handler.runs("overdue").get(0).timeout().deadline()).isEqualTo(deadline);
            assertThat(lateness.get("overdue")).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
        }

        @Test
        void aDelayOfZeroOrLessIsDueAtOnce() {
            Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);

            DurableTimeout negative = durable.schedule(TASK, "negative", Duration.ofSeconds(-30));
            durable.schedule(TASK, "zero", Duration.ZERO);

            // The database's time, read through the offset measured at each poll: within a few ms of ours.
            assertThat(negative.deadline())
                    .isBetween(before.minusMillis(100), Instant.now().plusMillis(100));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> handler.count("negative") == 1 && handler.count("zero") == 1);
        }

        @Test
        void deadlinesAreTruncatedToMilliseconds() {
            Instant precise = Instant.parse("2100-01-01T00:00:00.123456789Z");

            DurableTimeout timeout = durable.schedule(TASK, "precise", precise);

            assertThat(timeout.deadline()).isEqualTo(Instant.parse("2100-01-01T00:00:00.123Z"));
            assertThat(durable.find(TASK, "precise")).contains(timeout);
        }
    }

    @Nested
    class CancelAndFind {

        @Test
        void cancelRemovesThePendingTimeoutAndItNeverFires() {
            durable.schedule(TASK, "cancelled", Duration.ofMillis(300));
            durable.schedule(TASK, "marker", Duration.ofMillis(600));

            assertThat(durable.cancel(TASK, "cancelled")).isTrue();

            assertThat(durable.find(TASK, "cancelled")).isEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
            assertThat(handler.count("cancelled")).isZero();
        }

        @Test
        void cancelIsFalseWhenNothingIsPending() {
            assertThat(durable.cancel(TASK, "never-scheduled")).isFalse();

            durable.schedule(TASK, "twice", Duration.ofHours(1));
            assertThat(durable.cancel(TASK, "twice")).isTrue();
            assertThat(durable.cancel(TASK, "twice")).isFalse();

            durable.schedule(TASK, "ran", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("ran") == 1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> durable.find(TASK, "ran").isEmpty());
            assertThat(durable.cancel(TASK, "ran")).isFalse();
        }

        @Test
        void findReturnsThePendingTimeoutOnly() {
            assertThat(durable.find(TASK, "unknown-key")).isEmpty();
            DurableTimeout pending = durable.schedule(TASK, "pending", Duration.ofHours(1));

            assertThat(durable.find(TASK, "pending")).contains(pending);
            assertThat(durable.find("other-task", "pending")).isEmpty();
        }
    }

    @Nested
    class BadArguments {

        @Test
        void nullArgumentsNameTheParameter() {
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.schedule(null, "k", Duration.ZERO))
                    .withMessageContaining("task");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.schedule(TASK, null, Duration.ZERO))
                    .withMessageContaining("key");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.schedule(TASK, "k", (Duration) null))
                    .withMessageContaining("delay");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.schedule(TASK, "k", (Instant) null))
                    .withMessageContaining("deadline");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.cancel(null, "k"))
                    .withMessageContaining("task");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.cancel(TASK, null))
                    .withMessageContaining("key");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.find(null, "k"))
                    .withMessageContaining("task");
            assertThatNullPointerException()
                    .isThrownBy(() -> durable.find(TASK, null))
                    .withMessageContaining("key");
        }

        @Test
        void textNoDatabaseStoresIsRefusedNamingTheParameter() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, "order\u00001", Duration.ofHours(1)))
                    .withMessageStartingWith("key is \"order\\u00001\"")
                    .withMessageContaining("without U+0000 or unpaired surrogates");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, "half \uD83D pair", Duration.ofHours(1)))
                    .withMessageStartingWith("key is")
                    .withMessageContaining("unpaired surrogates");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.cancel("\uDE00" + TASK, "k"))
                    .withMessageStartingWith("task is");
            assertThat(fixture.rows()).isZero();
        }

        @Test
        void lengthsCountCharactersAsTheColumnDoesAndErrorsNeverCutOne() {
            String emoji = "\uD83D\uDE00"; // one character, two UTF-16 units
            String longest = emoji.repeat(150) + "x".repeat(50);

            durable.schedule(TASK, longest, Duration.ofHours(1));

            assertThat(durable.find(TASK, longest)).map(DurableTimeout::key).contains(longest);
            String tooLong = emoji.repeat(201);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, tooLong, Duration.ofHours(1)))
                    .withMessageContaining("(201 characters)")
                    .satisfies(e -> assertWhole(e.getMessage()));
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, "x" + tooLong, Duration.ofHours(1)))
                    .satisfies(e -> assertWhole(e.getMessage()));
        }

        /** Every surrogate in {@code text} is half of a whole pair. */
        private static void assertWhole(String text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    assertThat(i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))
                            .as("a whole pair at %d of %s", i, text)
                            .isTrue();
                    i++;
                } else {
                    assertThat(Character.isLowSurrogate(c))
                            .as("a lone low surrogate at %d", i)
                            .isFalse();
                }
            }
        }

        @Test
        void blankOrTooLongNamesAreRejectedNamingTheParameterAndTheLimit() {
            String tooLong = "x".repeat(201);
            List<Runnable> calls = new ArrayList<>();
            for (String bad : List.of("", "   ", tooLong)) {
                calls.add(() -> durable.schedule(bad, "k", Duration.ZERO));
                calls.add(() -> durable.schedule(bad, "k", Instant.now()));
                calls.add(() -> durable.cancel(bad, "k"));
                calls.add(() -> durable.find(bad, "k"));
            }
            for (Runnable call : calls) {
                assertThatIllegalArgumentException()
                        .isThrownBy(call::run)
                        .withMessageStartingWith("task is")
                        .withMessageContaining("200 characters");
            }
            for (String bad : List.of("", "   ", tooLong)) {
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> durable.schedule(TASK, bad, Duration.ZERO))
                        .withMessageStartingWith("key is")
                        .withMessageContaining("200 characters");
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> durable.cancel(TASK, bad))
                        .withMessageStartingWith("key is")
                        .withMessageContaining("200 characters");
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> durable.find(TASK, bad))
                        .withMessageStartingWith("key is")
                        .withMessageContaining("200 characters");
            }
            assertThat(fixture.rows()).isZero();
        }

        @Test
        void twoHundredCharactersAreAllowed() {
            String longest = "k".repeat(200);

            durable.schedule(TASK, longest, Duration.ofHours(1));

            assertThat(durable.find(TASK, longest)).isPresent();
            assertThat(durable.cancel(TASK, longest)).isTrue();
        }

        @Test
        void anUnknownTaskIsRejectedNamingItAndTheKnownOnes() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule("order-shipping", "k", Duration.ofMinutes(1)))
                    .withMessageContaining("\"order-shipping\"")
                    .withMessageContaining("[order-payment, other-task]");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule("order-shipping", "k", Instant.now()))
                    .withMessageContaining("\"order-shipping\"");
            assertThat(fixture.rows()).isZero();
        }

        @Test
        void aDeadlineBeyondEpochMillisecondsIsRejected() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, "k", Instant.MAX))
                    .withMessageStartingWith("deadline is");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> durable.schedule(TASK, "k", Duration.ofSeconds(Long.MAX_VALUE)))
                    .withMessageStartingWith("delay is");
        }
    }

    @Nested
    class Firing {

        @Test
        void firesWithinAFewTicksOfItsDeadlineOffTheWorkerThread() {
            Instant base = Instant.now().plusMillis(300);
            Map<String, Instant> deadlines = new ConcurrentHashMap<>();
            for (int i = 0; i < 20; i++) {
                String key = "on-time-" + i;
                deadlines.put(
                        key,
                        durable.schedule(TASK, key, base.plusMillis(25L * i)).deadline());
            }

            await().atMost(Duration.ofSeconds(15)).until(() -> handler.count() == 20);

            for (RecordingHandler.Run run : handler.runs()) {
                Instant deadline = deadlines.get(run.timeout().key());
                assertThat(run.started()).isAfterOrEqualTo(deadline);
                // A 10 ms tick plus the transaction; generous for a shared machine.
                assertThat(Duration.between(deadline, run.started())).isLessThan(Duration.ofMillis(500));
                assertThat(run.thread()).isNotEqualTo("durable-test-wheel").startsWith("wheel-timer-durable-");
            }
            List<Duration> late = handler.runs().stream()
                    .map(r -> Duration.between(deadlines.get(r.timeout().key()), r.started()))
                    .sorted()
                    .toList();
            System.out.println(
                    "ON-TIME (" + database + "): lateness min " + late.get(0).toMillis() + " ms, median "
                            + late.get(late.size() / 2).toMillis() + " ms, max "
                            + late.get(late.size() - 1).toMillis()
                            + " ms over " + late.size());
        }

        @Test
        void theHandlersWritesCommitWithTheRemovalOfTheRow() {
            durable.schedule(TASK, "writes", Duration.ofMillis(100));

            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.writes("writes") == 1);
            assertThat(fixture.rows()).isZero();
            assertThat(handler.count("writes")).isEqualTo(1);
            assertThat(durable.held()).isZero();
        }
    }
}
