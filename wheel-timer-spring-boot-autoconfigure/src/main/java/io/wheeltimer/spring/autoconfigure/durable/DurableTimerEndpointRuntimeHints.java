package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.spring.actuate.DurableTimerEndpointContributor;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The {@code "durable"} section of the {@code wheeltimer} endpoint, a record that Jackson writes by
 * reflection; the endpoint's signature declares it only as a value of a {@code Map<String, Object>}.
 */
final class DurableTimerEndpointRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(hints.reflection(), DurableTimerEndpointContributor.DurableDescriptor.class);
    }
}
