package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.testing.ManualTicker;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link ManualTicker} bean: the auto-configured timers take it as their ticker, so that a test
 * moves their time by hand.
 */
@Configuration(proxyBeanMethods = false)
public class ManualTime {

    @Bean
    public ManualTicker manualTicker() {
        return new ManualTicker();
    }
}
