package io.wheeltimer.sample;

import java.util.List;

/**
 * One page of {@code GET /orders}, newest first.
 *
 * @param orders the orders on this page; empty past the last page
 * @param page this page's number, from 0
 * @param size the most orders a page holds
 * @param totalElements how many orders there are, counted when the page was read
 */
public record OrderPage(List<Order> orders, int page, int size, long totalElements) {}
