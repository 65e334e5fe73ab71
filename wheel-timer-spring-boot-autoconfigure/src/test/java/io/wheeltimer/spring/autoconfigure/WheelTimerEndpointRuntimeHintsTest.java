package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.context.annotation.ImportRuntimeHints;

/** The endpoint's answers can be written by Jackson in a native image. */
class WheelTimerEndpointRuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    @Test
    void everyAnswerIsBoundWithWhatItHolds() throws Exception {
        new WheelTimerEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());

        AnswerHints.assertBoundWithWhatTheyHold(
                hints,
                WheelTimerEndpoint.TimersDescriptor.class,
                WheelTimerEndpoint.TimerDescriptor.class,
                WheelTimerEndpoint.TimerDetailDescriptor.class,
                WheelTimerEndpoint.UpcomingTimeout.class,
                WheelTimerEndpoint.StoppedDescriptor.class,
                WheelTimerEndpoint.ProblemDescriptor.class);
    }

    @Test
    void theEndpointsConfigurationImportsThem() {
        ImportRuntimeHints imported =
                WheelTimerEndpointAutoConfiguration.EndpointConfiguration.class.getAnnotation(ImportRuntimeHints.class);

        assertThat(imported).isNotNull();
        assertThat(imported.value()).contains(WheelTimerEndpointRuntimeHints.class);
    }
}
