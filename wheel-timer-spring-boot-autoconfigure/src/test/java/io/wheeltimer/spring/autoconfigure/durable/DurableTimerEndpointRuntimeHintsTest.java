package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.autoconfigure.AnswerHints;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerEndpointContributor.DurableDescriptor;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.context.annotation.ImportRuntimeHints;

/** The durable endpoints' answers can be written by Jackson in a native image. */
class DurableTimerEndpointRuntimeHintsTest {

    @Test
    void everyAnswerIsBound() {
        RuntimeHints hints = new RuntimeHints();
        new DurableTimerEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());

        AnswerHints.assertBoundWithWhatTheyHold(
                hints,
                DurableDescriptor.class,
                DurableTimeoutsEndpoint.OverviewDescriptor.class,
                DurableTimeoutsEndpoint.TimeoutsDescriptor.class,
                DurableTimeoutsEndpoint.TimeoutDescriptor.class,
                DurableTimeoutsEndpoint.RemovedDescriptor.class,
                DurableTimeoutsEndpoint.ProblemDescriptor.class);
    }

    @Test
    void everyRecordTheTimeoutsEndpointDeclaresIsAmongThem() {
        for (Class<?> declared : DurableTimeoutsEndpoint.class.getDeclaredClasses()) {
            if (declared.isRecord()) {
                assertThat(DurableTimerEndpointRuntimeHints.ANSWERS)
                        .as("a record of DurableTimeoutsEndpoint without a hint")
                        .contains(declared);
            }
        }
    }

    @Test
    void theSectionsConfigurationImportsThem() {
        ImportRuntimeHints imported = DurableTimerEndpointAutoConfiguration.EndpointConfiguration.class.getAnnotation(
                ImportRuntimeHints.class);

        assertThat(imported).isNotNull();
        assertThat(imported.value()).contains(DurableTimerEndpointRuntimeHints.class);
    }
}
