package io.wheeltimer;

import static io.wheeltimer.TimingWheelTest.TICK;
import static io.wheeltimer.TimingWheelTest.advance;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.TimingWheelTest.Item;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The read-ahead beside the wheel, step by step: what it reads, within its ticks and budget, and that it changes nothing. */
class ReadAheadTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void warmReadsTheEntriesDueFirstWithinItsTicksAndBudgetAndChangesNothing(boolean hierarchical) {
        TimingWheel wheel = new TimingWheel(TICK, 8, hierarchical);
        for (int i = 0; i < 3; i++) {
            wheel.schedule(new Item("a" + i, 3 * TICK));
            wheel.schedule(new Item("b" + i, 4 * TICK));
        }
        wheel.schedule(new Item("c", 6 * TICK));
        long next = wheel.nextEventTick();
        ReadAhead readAhead = new ReadAhead(wheel, TICK);

        assertThat(readAhead.warm(3, 2, 0, 100)).as("ticks 3 and 4").isEqualTo(6);
        assertThat(readAhead.warm(3, 2, 0, 4)).as("budget").isEqualTo(4);
        assertThat(readAhead.warm(3, 2, 4, 4)).as("the rest, after the first 4").isEqualTo(2);
        assertThat(readAhead.warm(3, 8, 0, 100)).as("the whole wheel").isEqualTo(7);
        assertThat(readAhead.warm(3, 8, 7, 100)).as("nothing left").isZero();
        assertThat(readAhead.warm(5, 1, 0, 100)).as("an empty tick").isZero();

        assertThat(wheel.size()).isEqualTo(7);
        assertThat(wheel.nextEventTick()).isEqualTo(next);
        assertThat(advance(wheel, 10)).containsExactly("a0@3", "a1@3", "a2@3", "b0@4", "b1@4", "b2@4", "c@6");
    }

    @Test
    void hierarchicalWarmSkipsEntriesStillInAnOverflowLevelAndReadsStagedOnes() {
        TimingWheel wheel = new TimingWheel(TICK, 4, true); // blocks of 4 ticks
        wheel.schedule(new Item("next block", 5 * TICK)); // level 1 from tick 0
        ReadAhead readAhead = new ReadAhead(wheel, TICK);

        assertThat(readAhead.warm(5, 1, 0, 100))
                .as("in level 1: its cascade reads it")
                .isZero();
        assertThat(wheel.precascade(100)).as("all moved").isFalse();
        assertThat(readAhead.warm(5, 1, 0, 100)).as("staged for the next block").isEqualTo(1);
        assertThat(advance(wheel, 5)).containsExactly("next block@5");
    }
}
