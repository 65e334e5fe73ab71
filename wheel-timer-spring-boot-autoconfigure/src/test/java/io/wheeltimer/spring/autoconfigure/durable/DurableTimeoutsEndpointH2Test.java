package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.test.context.TestPropertySource;

/** The {@code durabletimeouts} endpoint with writes allowed and data shown, on H2. */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:endpoint-unrestricted;DB_CLOSE_DELAY=-1")
class DurableTimeoutsEndpointH2Test extends DurableTimeoutsEndpointTests {}
