package io.wheeltimer.spring.autoconfigure;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The answers of the {@code wheeltimer} endpoint, records that Jackson writes by reflection: those that
 * the operations declare as {@code WebEndpointResponse<Object>} (one timer, a stop, a problem) are
 * not found from their signatures, and the listing is registered with its nested types too.
 */
final class WheelTimerEndpointRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(
                        hints.reflection(),
                        WheelTimerEndpoint.TimersDescriptor.class,
                        WheelTimerEndpoint.TimerDetailDescriptor.class,
                        WheelTimerEndpoint.StoppedDescriptor.class,
                        WheelTimerEndpoint.ProblemDescriptor.class);
    }
}
