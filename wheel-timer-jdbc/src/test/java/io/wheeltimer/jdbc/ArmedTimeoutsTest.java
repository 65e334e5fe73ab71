package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.ArmedTimeouts.Entry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The identity rule of armed timeouts: an entry is one version of one row, and it acts (is handed on
 * when due, armed again, refused, forgotten) only while it is the current entry for its id. The
 * newest version wins whatever order the versions are armed in; a stop disarms everything; what the
 * wheel or the executor refuses waits, still current, for the next poll to release it.
 */
class ArmedTimeoutsTest {

    private static final long NOW = 1_000_000L;

    private final FakeWheel wheel = new FakeWheel();
    private final List<Entry> handedOn = new ArrayList<>();
    private ArmedTimeouts armed;

    @BeforeEach
    void holding() {
        armed = new ArmedTimeouts(
                wheel,
                Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC),
                handedOn::add,
                new RepeatLog(System.getLogger("test"), "refusals", 1, System::nanoTime),
                TestSettings.defaults());
        armed.waitForLease();
        armed.hold();
    }

    private static DurableTimeout timeout(String key) {
        return new DurableTimeout("task", key, Instant.ofEpochMilli(NOW + 5_000));
    }

    private Entry arm(String key, long version) {
        armed.arm(timeout(key), version, 0, NOW + 5_000);
        return armed.current("task", key);
    }

    @Nested
    class AnEntryActsOnlyWhileItIsTheCurrentOne {

        @Test
        void anArmedEntryIsCurrentAndOnTheWheelAtItsDueTime() {
            Entry entry = arm("k", 1);

            assertThat(armed.isCurrent(entry)).isTrue();
            assertThat(wheel.armed).singleElement().satisfies(t -> {
                assertThat(t.delayMillis).isEqualTo(5_000);
                assertThat(t.cancelled).isFalse();
            });
            wheel.armed.get(0).fire();
            assertThat(handedOn).containsExactly(entry);
        }

        @Test
        void aReplacedEntryIsNoLongerCurrentAndIsDisarmed() {
            Entry first = arm("k", 1);
            Entry second = arm("k", 2);

            assertThat(armed.isCurrent(first)).isFalse();
            assertThat(armed.isCurrent(second)).isTrue();
            assertThat(wheel.armed.get(0).cancelled).isTrue();
            assertThat(wheel.armed.get(1).cancelled).isFalse();
            assertThat(armed.size()).isEqualTo(1);
        }

        @Test
        void aReplacedEntryCanNeitherBeArmedAgainNorForgottenNorRefused() {
            Entry first = arm("k", 1);
            Entry second = arm("k", 2);
            int onTheWheel = wheel.armed.size();

            armed.armAgain(first, 1, NOW + 10_000);
            assertThat(wheel.armed).as("nothing armed for the replaced entry").hasSize(onTheWheel);
            assertThat(armed.forget(first)).isFalse();
            armed.refused(first);
            assertThat(armed.refusedCount()).isZero();
            assertThat(armed.current("task", "k")).isSameAs(second);
        }

        @Test
        void theCurrentEntryIsArmedAgainAtItsNewTimeAsTheSameVersion() {
            Entry entry = arm("k", 1);

            armed.armAgain(entry, 1, NOW + 10_000);

            Entry again = armed.current("task", "k");
            assertThat(again).isNotSameAs(entry);
            assertThat(again.version).isEqualTo(1);
            assertThat(again.attempts).isEqualTo(1);
            assertThat(wheel.armed.get(0).cancelled).isTrue();
            assertThat(wheel.armed.get(1).delayMillis).isEqualTo(10_000);
        }

        @Test
        void aForgottenEntryIsDisarmedAndNoLongerCurrent() {
            Entry entry = arm("k", 1);

            assertThat(armed.forget(entry)).isTrue();

            assertThat(armed.isCurrent(entry)).isFalse();
            assertThat(armed.current("task", "k")).isNull();
            assertThat(wheel.armed.get(0).cancelled).isTrue();
            assertThat(armed.forget(entry)).as("once").isFalse();
        }
    }

    @Nested
    class TheNewestVersionWins {

        @Test
        void anOlderVersionArmedAfterANewerOneIsNotArmed() {
            Entry newer = arm("k", 2);

            boolean armedOlder = armed.arm(timeout("k"), 1, 0, NOW);

            assertThat(armedOlder).isFalse();
            assertThat(armed.current("task", "k")).isSameAs(newer);
            assertThat(wheel.armed)
                    .as("the older version never reaches the wheel")
                    .hasSize(1);
            assertThat(wheel.armed.get(0).cancelled).isFalse();
        }

        @Test
        void theSameVersionArmedAgainReplacesTheEntry() {
            Entry first = arm("k", 3);
            Entry second = arm("k", 3);

            assertThat(second).isNotSameAs(first);
            assertThat(armed.isCurrent(second)).isTrue();
            assertThat(wheel.armed.get(0).cancelled).isTrue();
        }

        @Test
        void forgettingAVersionRemovesThatVersionOrOlderButNeverANewerOne() {
            Entry newer = arm("k", 5);

            armed.forget("task", "k", 4);
            assertThat(armed.current("task", "k")).isSameAs(newer);

            armed.forget("task", "k", 5);
            assertThat(armed.current("task", "k")).isNull();
            assertThat(wheel.armed.get(0).cancelled).isTrue();
        }

        @Test
        void rowsOfOtherIdsAreNotTouched() {
            Entry one = arm("one", 1);
            Entry other = arm("other", 1);

            armed.forget(one);

            assertThat(armed.isCurrent(other)).isTrue();
            assertThat(armed.keys()).containsExactly("task/other");
        }
    }

    @Nested
    class HoldingAndStop {

        @Test
        void nothingIsArmedBeforeTheFirstLeaseIsWritten() {
            armed.stop();
            armed.waitForLease();

            assertThat(armed.isHolding()).isFalse();
            assertThat(armed.arm(timeout("k"), 1, 0, NOW)).isFalse();
            assertThat(wheel.armed).isEmpty();

            armed.hold();
            assertThat(armed.arm(timeout("k"), 1, 0, NOW)).isTrue();
        }

        @Test
        void aStopDisarmsEverythingAndArmsNothingMore() {
            arm("one", 1);
            arm("two", 1);
            armed.arm(timeout("refused"), 1, 0, NOW);
            armed.refused(armed.current("task", "refused"));

            armed.stop();

            assertThat(armed.size()).isZero();
            assertThat(armed.refusedCount()).isZero();
            assertThat(wheel.armed).allSatisfy(t -> assertThat(t.cancelled).isTrue());
            assertThat(armed.arm(timeout("three"), 1, 0, NOW)).isFalse();
            armed.hold();
            assertThat(armed.isHolding())
                    .as("not until the next start waits for a lease")
                    .isFalse();
        }

        @Test
        void forgettingAllButTheRunningOnesKeepsOnlyThose() {
            Entry running = arm("running", 1);
            arm("idle", 1);

            armed.forgetAllBut(entry -> entry.id.key().equals("running"));

            assertThat(armed.keys()).containsExactly("task/running");
            assertThat(armed.isCurrent(running)).isTrue();
        }
    }

    @Nested
    class Refusals {

        @Test
        void whatTheWheelRefusesStaysCurrentUntilThePollTakesItForRelease() {
            wheel.refusing = true;
            boolean armedIt = armed.arm(timeout("k"), 1, 0, NOW);
            Entry entry = armed.current("task", "k");

            assertThat(armedIt).as("armed, for the poll to release").isTrue();
            assertThat(armed.isCurrent(entry))
                    .as("nothing else runs it meanwhile")
                    .isTrue();
            assertThat(armed.refusedCount()).isEqualTo(1);

            assertThat(armed.takeRefused()).containsExactly(entry);
            assertThat(armed.isCurrent(entry)).isFalse();
            assertThat(armed.takeRefused()).as("taken once").isEmpty();
        }

        @Test
        void whatTheExecutorRefusesIsTakenByTheNextPoll() {
            Entry entry = arm("k", 1);

            armed.refused(entry);

            assertThat(armed.takeRefused()).containsExactly(entry);
            assertThat(armed.size()).isZero();
        }

        @Test
        void aRefusedEntryReplacedBeforeThePollIsNotReleased() {
            Entry refused = arm("k", 1);
            armed.refused(refused);
            Entry newer = arm("k", 2);

            assertThat(armed.takeRefused())
                    .as("the newer version owns the row now")
                    .isEmpty();
            assertThat(armed.isCurrent(newer)).isTrue();
        }
    }
}
