/* report.h — where a range of the test program's memory really is, for the
 * tests to check: one line
 *   NAME bytes=N flags=hg|nh|mixed|- thp_kb=N hugetlb_kb=N pagesize_kb=N nodes=0:512,2:1536
 * from /proc/self/smaps (the VMAs that hold the range: their VmFlags, the
 * huge pages in them, the kernel page size) and move_pages(2) (the node of
 * each page; err:N(status) for pages without one). */
#ifndef HMPT_TEST_REPORT_H
#define HMPT_TEST_REPORT_H

#include <stddef.h>
#include <stdint.h>

void report_range(const char *name, const void *p, size_t len);
/* A static object's pages as hmpt places them (docs/plan-format.md):
 * each end rounded to the nearest page boundary, a middle rounding up. */
void report_static(const char *name, const void *p, size_t len);
/* The page advice of the VMA holding addr: "hg", "nh" or "-". */
const char *report_page_flags(uintptr_t addr);

#endif
