package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wheel step by step: no thread, no clock, ticks of 10 ns. */
class TimingWheelTest {

    static final long TICK = 10;

    static final class Item extends TimingWheel.Entry {
        final String name;

        Item(String name, long deadline) {
            this.name = name;
            this.deadlineNanos = deadline;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Advances to {@code tick}, without a work limit, and returns "name@tick" for each expired entry. */
    static List<String> advance(TimingWheel wheel, long tick) {
        List<String> fired = new ArrayList<>();
        wheel.advance(tick, Integer.MAX_VALUE, (t, due, count) -> {
            assertThat(t).as("the sink's tick is the current one").isEqualTo(wheel.currentTick());
            for (int i = 0; i < count; i++) {
                fired.add(due[i] + "@" + t);
            }
            return true;
        });
        assertThat(wheel.currentTick()).as("current tick after the advance").isGreaterThanOrEqualTo(tick);
        return fired;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void deadlineOnABoundaryFiresAtThatBoundaryAndOneNanoPastFiresAtTheNext(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 8, hierarchical);
        wheel.schedule(new Item("onBoundary", 3 * TICK));
        wheel.schedule(new Item("justPast", 3 * TICK + 1));

        assertThat(advance(wheel, 2)).isEmpty();
        assertThat(advance(wheel, 3)).containsExactly("onBoundary@3");
        assertThat(advance(wheel, 4)).containsExactly("justPast@4");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void entryWhoseDeadlinePassedFiresOnTheNextTick(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 8, hierarchical);
        advance(wheel, 100);
        wheel.schedule(new Item("late", 5 * TICK));

        assertThat(wheel.nextEventTick()).isEqualTo(101);
        assertThat(advance(wheel, 101)).containsExactly("late@101");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void entriesFarBeyondOneRotationFireAtTheirTickInOrder(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 4, hierarchical);
        wheel.schedule(new Item("c", 1000 * TICK));
        wheel.schedule(new Item("a", 17 * TICK));
        wheel.schedule(new Item("b", 64 * TICK));

        assertThat(advance(wheel, 5000)).containsExactly("a@17", "b@64", "c@1000");
        assertThat(wheel.size()).isZero();
        assertThat(wheel.nextEventTick()).isEqualTo(TimingWheel.NO_TICK);
    }

    @Test
    void hierarchicalEntryWaitsInAnOverflowLevelAndCascadesAtTheStartOfItsSpan() {
        TimingWheel wheel = new TimingWheel(TICK, 4, true); // levels of 4, 16, 64... ticks
        wheel.schedule(new Item("x", 37 * TICK)); // level 2 from tick 0: 37 = 2*16 + 1*4 + 1

        assertThat(wheel.nextEventTick()).as("level 2 cascades at 32").isEqualTo(32);
        assertThat(advance(wheel, 32)).isEmpty();
        assertThat(wheel.nextEventTick()).as("then level 1 at 36").isEqualTo(36);
        assertThat(advance(wheel, 36)).isEmpty();
        assertThat(wheel.nextEventTick()).as("then its own tick").isEqualTo(37);
        assertThat(advance(wheel, 37)).containsExactly("x@37");
    }

    @Test
    void precascadeRateIsWhatEmptiesTheNextBlocksBucketBeforeItStarts() {
        TimingWheel wheel = new TimingWheel(TICK, 8, true); // blocks of 8 ticks
        for (int i = 0; i < 21; i++) {
            wheel.schedule(new Item("n" + i, (8 + i % 8) * TICK)); // the next block, level 1
        }
        assertThat(wheel.precascadeRate()).as("21 over the 8 ticks left").isEqualTo(3);

        advance(wheel, 4);
        assertThat(wheel.precascadeRate()).as("21 over 4").isEqualTo(6);
        assertThat(wheel.precascade(6)).isTrue();
        assertThat(wheel.precascadeRate()).as("15 over 4").isEqualTo(4);
        advance(wheel, 7);
        assertThat(wheel.precascadeRate()).as("15 over the last tick").isEqualTo(15);
        assertThat(wheel.precascade(15)).as("all moved").isFalse();
        assertThat(wheel.precascadeRate()).isZero();
        assertThat(advance(wheel, 16)).hasSize(21);
        assertThat(new TimingWheel(TICK, 8, false).precascadeRate()).as("flat").isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void advanceStopsAtItsWorkLimitAndGoesOnFromThereOnTheNextCall(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 8, hierarchical);
        for (int i = 0; i < 3; i++) {
            wheel.schedule(new Item("a" + i, 2 * TICK));
            wheel.schedule(new Item("b" + i, 3 * TICK));
        }
        List<String> fired = new ArrayList<>();
        TimingWheel.TickSink sink = (t, due, count) -> {
            for (int i = 0; i < count; i++) {
                fired.add(due[i] + "@" + t);
            }
            return true;
        };

        assertThat(wheel.advance(10, 2, sink))
                .as("stopped after tick 2: 3 due + 1")
                .isEqualTo(3);
        assertThat(wheel.currentTick()).as("not moved past what it processed").isEqualTo(2);
        assertThat(fired).containsExactly("a0@2", "a1@2", "a2@2");

        assertThat(wheel.advance(10, 2, sink)).as("all done").isEqualTo(TimingWheel.NO_TICK);
        assertThat(wheel.currentTick()).as("moved on to the target").isEqualTo(10);
        assertThat(fired).endsWith("b0@3", "b1@3", "b2@3");
    }

    @Test
    void advanceStopsWhenTheSinkSaysSoAndTellsItOfEachCascade() {
        TimingWheel wheel = new TimingWheel(TICK, 4, true);
        wheel.schedule(new Item("x", 5 * TICK)); // level 1: cascades at 4
        wheel.schedule(new Item("y", 6 * TICK));
        List<String> seen = new ArrayList<>();
        TimingWheel.TickSink sink = new TimingWheel.TickSink() {
            @Override
            public void cascaded(long tick) {
                seen.add("cascaded@" + tick);
            }

            @Override
            public boolean expired(long tick, TimingWheel.Entry[] due, int count) {
                for (int i = 0; i < count; i++) {
                    seen.add(due[i] + "@" + tick);
                }
                return count == 0; // stop after the first tick that fired something
            }
        };

        assertThat(wheel.advance(100, Integer.MAX_VALUE, sink))
                .as("y still due")
                .isEqualTo(6);
        assertThat(seen).containsExactly("cascaded@4", "cascaded@5", "x@5");
        assertThat(wheel.currentTick()).isEqualTo(5);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void removedEntryNeverFiresAndRemoveIsIdempotent(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 8, hierarchical);
        Item kept = new Item("kept", 40 * TICK);
        Item removed = new Item("removed", 40 * TICK);
        wheel.schedule(kept);
        wheel.schedule(removed);

        assertThat(wheel.remove(removed)).isTrue();
        assertThat(wheel.remove(removed)).isFalse();
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(advance(wheel, 100)).containsExactly("kept@40");
        assertThat(wheel.remove(kept)).as("already fired").isFalse();
    }

    @Test
    void schedulingAnEntryTwiceIsRefused() {
        TimingWheel wheel = new TimingWheel(TICK, 8, true);
        Item item = new Item("once", 5 * TICK);
        wheel.schedule(item);

        assertThatThrownBy(() -> wheel.schedule(item)).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void neverDeadlineStaysScheduledAndCanBeRemoved(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 16, hierarchical);
        Item never = new Item("never", Long.MAX_VALUE);
        wheel.schedule(never);

        assertThat(advance(wheel, 1L << 40)).isEmpty();
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(wheel.remove(never)).isTrue();
    }

    @Test
    void clearHandsOverEveryEntryOfEveryLevel() {
        TimingWheel wheel = new TimingWheel(TICK, 4, true);
        List<String> names = List.of("near", "mid", "far");
        wheel.schedule(new Item("near", 2 * TICK));
        wheel.schedule(new Item("mid", 20 * TICK));
        wheel.schedule(new Item("far", 2000 * TICK));

        List<String> cleared = new ArrayList<>();
        wheel.clear(e -> cleared.add(e.toString()));

        assertThat(cleared).containsExactlyInAnyOrderElementsOf(names);
        assertThat(wheel.size()).isZero();
        assertThat(advance(wheel, 5000)).isEmpty();
    }

    @Test
    void rejectsAWheelSizeThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new TimingWheel(TICK, 12, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("12");
    }

    /**
     * The point of the hierarchical layout: with far-future entries in every bucket and some
     * work due every tick, the flat wheel looks at each far entry once per rotation, while the
     * hierarchical wheel moves each down at most once per level.
     */
    @Test
    void hierarchicalWheelDoesNotRescanFarEntriesEveryRotation() {
        int far = 10_000;
        int rotations = 50;
        int wheelSize = 64;
        long flat = workWithBusyTicksAndFarEntries(false, wheelSize, far, rotations);
        long hierarchical = workWithBusyTicksAndFarEntries(true, wheelSize, far, rotations);

        long busyWork = 2L * wheelSize * rotations; // one near entry placed and expired per tick
        assertThat(flat - busyWork)
                .as("flat: far entries looked at every rotation")
                .isGreaterThanOrEqualTo((long) far * (rotations - 1));
        assertThat(hierarchical - busyWork)
                .as("hierarchical: placed once per level at most")
                .isLessThanOrEqualTo(far * 4L);
    }

    private static long workWithBusyTicksAndFarEntries(boolean hierarchical, int wheelSize, int far, int rotations) {
        TimingWheel wheel = new TimingWheel(TICK, wheelSize, hierarchical);
        long horizon = (long) wheelSize * rotations;
        for (int i = 0; i < far; i++) {
            wheel.schedule(new Item("far" + i, (horizon * 1000 + i) * TICK)); // spread over all buckets
        }
        long before = wheel.touches();
        for (long t = 1; t <= horizon; t++) {
            wheel.schedule(new Item("near", t * TICK));
            assertThat(advance(wheel, t)).containsExactly("near@" + t);
        }
        return wheel.touches() - before;
    }
}
