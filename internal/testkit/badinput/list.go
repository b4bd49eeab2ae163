package badinput

func (w *writer) list() {
	lst := func(name, text string, c Case) { w.add(c, name+".lst", []byte(text)) }
	lst("lst_good", "0\t0.000000\tcat/a.jpg\n1\t1.000000\tdog/b.jpg\n\n2\t1\t2\tdog/c d.png\n", good("lst_good", List))
	lst("lst_dotdot_path", "0\t0\tcat/a.jpg\n1\t0\t../../etc/hostname\n",
		Case{Name: "lst_dotdot_path", Format: List, Why: "a path that leaves the image root", CheckOnly: true})
	lst("lst_absolute_path", "0\t0\tcat/a.jpg\n1\t0\t/etc/hostname\n",
		Case{Name: "lst_absolute_path", Format: List, Why: "an absolute path", CheckOnly: true})
	lst("lst_empty_path", "0\t0\tcat/a.jpg\n1\t0\t \t\n",
		bad("lst_empty_path", List, "an empty path field"))
	lst("lst_repeated_index", "0\t0\tcat/a.jpg\n1\t0\tcat/b.jpg\n0\t1\tdog/c.jpg\n",
		bad("lst_repeated_index", List, "index 0 on lines 1 and 3"))
	lst("lst_bad_label", "0\t0\tcat/a.jpg\n1\tcat\tcat/b.jpg\n",
		bad("lst_bad_label", List, "a label that is not a number"))
	lst("lst_bad_index", "0\t0\tcat/a.jpg\n-1\t0\tcat/b.jpg\n",
		bad("lst_bad_index", List, "an index that is not an unsigned integer"))
	lst("lst_too_few_fields", "0\t0\tcat/a.jpg\n1\tcat/b.jpg\n",
		bad("lst_too_few_fields", List, "a line with two fields"))
}
