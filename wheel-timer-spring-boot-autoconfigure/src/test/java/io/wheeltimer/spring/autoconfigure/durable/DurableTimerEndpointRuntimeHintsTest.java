package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.autoconfigure.durable.DurableTimerEndpointContributor.DurableDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;

/** The durable endpoints' answers can be written by Jackson in a native image. */
class DurableTimerEndpointRuntimeHintsTest {

    @Test
    void everyAnswerIsBound() {
        RuntimeHints hints = new RuntimeHints();
        new DurableTimerEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (Class<?> answer : List.of(
                DurableDescriptor.class,
                DurableTimeoutsEndpoint.OverviewDescriptor.class,
                DurableTimeoutsEndpoint.TimeoutsDescriptor.class,
                DurableTimeoutsEndpoint.TimeoutDescriptor.class,
                DurableTimeoutsEndpoint.RemovedDescriptor.class,
                DurableTimeoutsEndpoint.ProblemDescriptor.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(answer))
                    .as(answer.getSimpleName())
                    .accepts(hints);
            for (var component : answer.getRecordComponents()) {
                assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
                        .as(answer.getSimpleName() + "." + component.getName())
                        .accepts(hints);
            }
        }
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
